import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { gql } from './api';
import { sessionLabel } from './session-name';
import { onReconnect, useSubscription } from './live';
import { when } from './widgets';

/** A person's latest change to an agent's plan or claimed item, and whether the agent has been told (Session.steering, Item.steering). */
export interface Steering { at: string; action: string; itemId: string | null; itemText: string | null; seen: boolean; seenAt: string | null; session: { id: string; name: string | null } | null }

export const STEERING_FIELDS = 'steering { at action itemId itemText seen seenAt session { id name } }';

const ITEMS_STEERING = `query($id: ID!) { task(id: $id) { items(first: 200) { nodes { id ${STEERING_FIELDS} } } } }`;
// The agent's next call moves its steeringSeenAt: a session change (any session, for claims held in a domain's task).
const SESSION_LIVE = 'subscription($id: ID) { sessionChanged(id: $id) { sessionId action } }';

/** What a change a person made was, in a few words. */
const DID: Record<string, string> = {
  ITEM_STATE: 'changed the state of', ITEMS_ADDED: 'added', ITEM_RENAMED: 'renamed', ITEM_DELETED: 'deleted', ITEM_MOVED: 'moved',
  ITEM_RESTORED: 'restored', ITEM_WAITS: 'changed the waits of', COMMENT_ADDED: 'commented on', NOTE_ADDED: 'added a note to', NOTE_EDITED: 'edited a note of', NOTE_DELETED: 'deleted a note of',
  CLAIM_RELEASED: 'released the claim on', CLAIM_OVERRIDDEN: 'changed, past the claim,', TASK_EDITED: 'edited', PLAN_WRITTEN: 'rewrote the plan', PLAN_CLEARED: 'cleared the plan',
  RULES_CHANGED: 'changed the plan’s rules',
};

/**
 * Whether the agent has seen a person's change: "The agent has not seen this
 * yet" until its next MCP call tells it, then "Seen by <agent> at …". With
 * `what`, it says which change ("Your change to “Deploy”: …").
 */
export function SteeringMark({ steering, what = false }: { steering: Steering; what?: boolean }) {
  const agent = steering.session ? sessionLabel(steering.session) : 'the agent';
  const change = what ? `${DID[steering.action] ?? 'changed'}${steering.itemText ? ` “${steering.itemText}”` : ''} at ${when(steering.at)}: ` : '';
  return steering.seen ? (
    <span class="steering seen small" data-steering="seen">{what ? `A person ${change}` : ''}✓ seen by {agent}{steering.seenAt ? <> at <time dateTime={steering.seenAt}>{when(steering.seenAt)}</time></> : null}</span>
  ) : (
    <span class="steering unseen small" data-steering="unseen" title={`${agent} is told at the start of its next tool answer`}>{what ? `A person ${change}` : ''}⚠ the agent has not seen this yet</span>
  );
}

/** Each item's steering mark, by item id, for a task's rows (empty outside a task view). */
export const SteeringMarks = createContext<ReadonlyMap<string, Steering>>(new Map());

export function useItemSteering(itemId: string): Steering | null {
  return useContext(SteeringMarks).get(itemId) ?? null;
}

/**
 * The steering marks of a task's items, read when the task is an agent's plan
 * or has claimed items (others have none): again on each change to the task
 * (`changes`) and each change to the plan's session (every session's, for
 * claims), which is how an agent's being told arrives.
 */
export function useTaskSteering(taskId: string | null, planSession: string | null, anyClaim: boolean, changes: number): ReadonlyMap<string, Steering> {
  const wanted = Boolean(taskId && (planSession || anyClaim));
  const [marks, setMarks] = useState<ReadonlyMap<string, Steering>>(new Map());
  const [tick, setTick] = useState(0);
  // A burst of session changes (every session's, for claims) is one read.
  const timer = useRef<number | undefined>(undefined);
  const again = () => { clearTimeout(timer.current); timer.current = window.setTimeout(() => setTick((n) => n + 1), 100); };
  useSubscription(wanted ? SESSION_LIVE : null, { id: planSession }, again);
  useEffect(() => onReconnect(again), []);
  useEffect(() => {
    if (!wanted) { setMarks(new Map()); return; }
    let current = true;
    gql<{ task: { items: { nodes: { id: string; steering: Steering | null }[] } } | null }>(ITEMS_STEERING, { id: taskId }).then((data) => {
      if (!current) return;
      const next = new Map<string, Steering>();
      for (const node of data.task?.items.nodes ?? []) if (node.steering) next.set(node.id, node.steering);
      setMarks(next);
    }, () => undefined);
    return () => { current = false; };
  }, [wanted, taskId, changes, tick]);
  return marks;
}
