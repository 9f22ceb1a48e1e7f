import { ApiError } from './api';

// Refusals said for the person at a form: the new-task view, a new note and a task's edit share them, so they live below views/.
export type Field = 'title' | 'goal' | 'items' | 'domain';

/** The form field a refusal is about, from its reason and facts (never its message). */
function fieldOf(failure: ApiError): Field | null {
  if (failure.code === 'INVALID_DOMAIN') return 'domain';
  if (['LABEL_TAKEN', 'LABEL_SENT_TWICE', 'ITEMS_PER_CALL', 'ITEMS_PER_TASK'].includes(failure.reason)) return 'items';
  const field = failure.facts.field;
  return field === 'title' || field === 'goal' || field === 'items' || field === 'domain' ? field : null;
}

/**
 * The server's refusal, said for the person at the form and placed at the
 * field it is about. The server's words are written for an agent ("send a
 * short label"); the code, reason and facts (extensions) say what happened,
 * so the form says it again. `noun` is what the form makes (a task, a note).
 */
export function refusalForPeople(failure: unknown, noun: 'task' | 'note' = 'task'): { field: Field | null; message: string } {
  if (!(failure instanceof ApiError)) return { field: null, message: String(failure) };
  const { code, reason, facts, message } = failure;
  const field = fieldOf(failure);
  if (code === 'EMPTY_TEXT' && field === 'title') return { field, message: `Give the ${noun} a title.` };
  if (code === 'EMPTY_TEXT' && field === 'goal') return { field, message: 'Write the goal: what is true once this task is done.' };
  if (code === 'EMPTY_TEXT') return { field: 'items', message: 'An item line has no visible text; remove the empty line or write the item.' };
  if (code === 'INVALID_DOMAIN') return { field: 'domain', message: 'A domain is lower-case words joined by “/”, such as acme/checkout (letters, digits, “.”, “_” or “-”, at most 8 levels).' };
  if (reason === 'LABEL_TOO_LONG' && typeof facts.item === 'number') {
    return { field: 'items', message: `Item ${facts.item} is ${facts.length} characters; an item may have ${facts.limit}. Shorten it and put the detail in the goal.` };
  }
  if (reason === 'LABEL_TOO_LONG' && field === 'title') {
    return { field, message: `The title is ${facts.length} characters; a title may have ${facts.limit}. Shorten it and put the detail in the ${noun === 'task' ? 'goal' : 'body'}.` };
  }
  if (code === 'REF_IN_LABEL') return { field, message: 'Titles and items are plain words: an [[#id]] reference belongs in the goal.' };
  if (code === 'BARE_ITEM_REFERENCE' || code === 'UNKNOWN_REFERENCE') return { field: 'goal', message: 'A new task has no items to cite yet: write the goal in words, and cite items later as [[#id]].' };
  return { field, message };
}

