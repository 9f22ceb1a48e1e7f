import { graphqlMessage, REFUSAL_CODES, REFUSAL_REMEDIES, type Refusal, type RefusalFacts, type RefusalReason } from './refusals.js';
import type { Remedy } from './remedies.js';

/**
 * Every refusal the API can give, one code each. The message that goes with a
 * code is written for an agent to read and act on: what was wrong and what to
 * send instead. `src/graphql/errors.ts` maps these to `extensions.code`, beside
 * the refusal's reason and facts (refusals.ts).
 */
const ERROR_CODES = [
  /** A label is empty once trimmed. */
  'EMPTY_TEXT',
  /** A label is longer than its limit (80 for task items, the session's maxTextLength for plans). */
  'TEXT_TOO_LONG',
  /** The same label twice among a task's live items. */
  'DUPLICATE_TEXT',
  /** A label carries an [[#id]] token. */
  'REF_IN_LABEL',
  /** Free text cites an item as a bare word (i3) instead of [[#id]]. */
  'BARE_ITEM_REFERENCE',
  /** An [[#id]] token names no item of this task. */
  'UNKNOWN_REFERENCE',
  /** A domain is not 1..8 segments of [a-z0-9][a-z0-9._-]* joined by '/'. */
  'INVALID_DOMAIN',
  /** A brief lacks a required field, or a task note has both or neither of body and brief. */
  'BRIEF_INCOMPLETE',
  /** A size limit (text, items, page size, query depth/cost). */
  'TOO_LARGE',
  /** An id names nothing this caller may see. */
  'NOT_FOUND',
  /** expectedVersion is not the task's current version. */
  'VERSION_CONFLICT',
  /** Auth is on and the bearer token is missing or unknown. */
  'UNAUTHENTICATED',
  /** The caller may not change this. */
  'FORBIDDEN',
  /** A change names a deleted item. */
  'DELETED_ITEM',
  /** Arguments that do not fit together. */
  'BAD_USER_INPUT',
  /** A plan mutation without a started session. */
  'NO_SESSION',
  /** A step moved into a state that needs a note, without one. */
  'NOTE_REQUIRED',
  /** A 1-based step outside the plan. */
  'STEP_OUT_OF_RANGE',
  /** A plan shorter than minItems or longer than maxItems. */
  'PLAN_SIZE',
  /** A step operation before any plan exists. */
  'NO_PLAN',
  /** The one-active rule would be broken. */
  'TOO_MANY_IN_PROGRESS',
  /** finishSession while steps are still open. */
  'PLAN_OPEN',
  /** The session's rules have planOnce and the call would rewrite its written plan. */
  'PLAN_LOCKED',
  /** The database cannot be reached or written (PostgreSQL down, the SQLite file unreadable): nothing was recorded; retry. */
  'UNAVAILABLE',
  /** Another session's live claim holds the item (the message names the session and when the claim expires). */
  'CLAIMED',
  /** renewClaim by a session that holds no live claim on the item. */
  'NOT_CLAIMED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A fact's value: what a client can read from `extensions` as JSON. */
export type FactValue = string | number | boolean | null | readonly string[] | readonly number[];

/**
 * What a refusal was about, as data (ids, limits, counts, holder, expiry), so
 * each surface can say it in its own words without reading the message.
 * GraphQL sends them in `extensions` beside `code` and `reason`.
 */
export type ErrorFacts = PlanFacts & { readonly [fact: string]: FactValue | undefined };

/** The facts of the plan rules, typed: the plan tool sets word PLAN_SIZE, NOTE_REQUIRED and the rest from them. */
interface PlanFacts {
  /** The limit broken (PLAN_SIZE's maxItems or minItems, TEXT_TOO_LONG's length). */
  readonly limit?: number;
  /** What was sent against that limit (steps the plan would have, characters). */
  readonly count?: number;
  /** The plan's length before the call (PLAN_SIZE on a plan that grows). */
  readonly current?: number;
  /** The 1-based place of the step the refusal is about. */
  readonly step?: number;
  /** The state the refusal is about (NOTE_REQUIRED's, TOO_MANY_IN_PROGRESS's). */
  readonly state?: string;
  /** The 1-based place of the step already in progress (TOO_MANY_IN_PROGRESS). */
  readonly otherStep?: number;
  /** The rewrite planOnce forbids (PLAN_LOCKED). */
  readonly rewrite?: string;
  /** The text the refusal is about (DUPLICATE_TEXT). */
  readonly text?: string;
}

/** A refusal: the code clients branch on, its reason and facts as data, and a message an agent can act on. */
export class DomainError extends Error {
  /** The catalogued refusal (refusals.ts), when it is one: its reason and typed facts. */
  readonly refusal?: Refusal;
  /** What to send instead, where that names an operation (remedies.ts). */
  readonly remedy?: Remedy;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The facts the refusal is about; the keys name what they are (limit, count, step, itemId…). */
    readonly facts: ErrorFacts = {},
    catalogued?: Refusal,
  ) {
    super(message);
    this.name = 'DomainError';
    this.refusal = catalogued;
    this.remedy = catalogued ? REFUSAL_REMEDIES[catalogued.reason] : undefined;
  }

  /** The refusal's reason: its catalogue key (refusals.ts), else its code. */
  get reason(): string {
    return this.refusal?.reason ?? this.code;
  }

  /** The facts under the name the plan tools read them by. */
  get details(): ErrorFacts {
    return this.facts;
  }
}

/** A catalogued refusal: its code and message come from refusals.ts, its facts travel with it. */
export function refuse<R extends RefusalReason>(reason: R, facts: RefusalFacts[R]): DomainError {
  const refusal = { reason, facts } as Refusal;
  return new DomainError(REFUSAL_CODES[reason], graphqlMessage(refusal), facts as unknown as ErrorFacts, refusal);
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
