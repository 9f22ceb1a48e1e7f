// The shapes of the task page's answers, as the documents in
// dashboard-documents.mjs ask for them (field for field; schema.graphql says
// what each means). One place, so the page, its hooks and its components read
// the same names.
import type { PlanPreset } from '../../src/domain/plan-rules';
import type { ItemClaim } from './claims';
import type { ItemRef } from './refs';

export type { ItemRef };

/** A page of a connection: how many there are, where the next page starts, and this page's nodes. */
export interface Page<T> { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: T[] }

/** COMMENT: a comment on the task or one of its items, with the items it cites. */
export interface Comment { id: string; body: string; createdAt: string; refs: ItemRef[]; item: { id: string } | null }

/** A note or task an item links to (Item.related). */
export interface Related { id: string; title: string; kind: string; domain: string | null }

/** ITEM: a row of the checklist. */
export interface Item extends ItemClaim { id: string; number: number | null; text: string; state: string; deleted: boolean; note: string | null; added: boolean; related: Related[] }

/** BRIEF: a brief's sections and the items its work waits for. */
export interface Brief {
  goal: string | null; context: string | null; steps: string | null; pitfalls: string | null; doneWhen: string | null; extraInfo: string | null;
  dependsOn: { item: ItemRef; reason: string | null }[];
}
export type BriefField = Exclude<keyof Brief, 'dependsOn'>;

/** A task's note, or a brief on some of its items. */
export interface TaskNote { id: string; title: string; body: string | null; brief: Brief | null; items: { id: string; number: number | null; text: string }[]; refs: ItemRef[]; updatedAt: string }
export interface TaskNotes { totalCount: number; nodes: TaskNote[] }

/** The rules a session's plan follows (Session.rules). */
export interface SessionRules { noteRequiredFor: string[]; planOnce: boolean; oneActive: boolean; minItems: number | null; maxItems: number | null; maxTextLength: number | null; maxNoteLength: number | null }

export interface Progress { done: number; total: number; blocked: number; failed: number }

/** META: the task without its items, comments or notes. */
export interface TaskMeta {
  id: string; title: string; goal: string; goalRefs: ItemRef[]; domain: string | null; state: string; status: string; version: number; updatedAt: string;
  session: { id: string; name: string | null; preset: PlanPreset; rules: SessionRules } | null;
  progress: Progress;
}

/** TASK_HEAD: the task, its first comments, its notes and how long its history is. */
export interface TaskHead extends TaskMeta { comments: Page<Comment>; notes: TaskNotes; history: { totalCount: number; nodes: { id: string }[] } }
