/** A task's page: its components live in views/task/, one a file. */
export { TaskView } from './task/task-view';
