/** The GraphQL a task page sends: one place, so each component names what it asks. */
export const UPDATE_ITEM = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state text } }';
export const ADD_ITEMS = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } } }';
export const MOVE_ITEM = 'mutation($input: MoveItemInput!) { moveItem(input: $input) { id } }';
export const ADD_COMMENT = 'mutation($input: AddCommentInput!) { addComment(input: $input) { id } }';
export const EDIT_TASK = 'mutation($input: EditTaskInput!) { editTask(input: $input) { id version } }';
export const EDIT_NOTE = 'mutation($input: EditTaskNoteInput!) { editTaskNote(input: $input) { id } }';
export const ADD_NOTE = 'mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }';
export const SEARCH_NOTES = 'query($query: String!) { search(query: $query, kind: NOTE, first: 8) { nodes { id title domain } } }';
export const CURRENT_GOAL = 'query($id: ID!) { task(id: $id) { version goal } }';
export const CURRENT_ITEM = 'query($id: ID!) { item(id: $id) { text state task { version } } }';
