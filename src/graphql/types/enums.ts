import { registerEnumType } from 'type-graphql';

/** Mirrors src/domain/states.ts as GraphQL enums (the string values are the same). */
export enum ItemStateEnum {
  PENDING = 'PENDING',
  IN_PROGRESS = 'IN_PROGRESS',
  DONE = 'DONE',
  DROPPED = 'DROPPED',
  BLOCKED = 'BLOCKED',
  FAILED = 'FAILED',
}

export enum TaskStateEnum {
  OPEN = 'OPEN',
  COMPLETED = 'COMPLETED',
  CANCELLED = 'CANCELLED',
}

export enum MemoryKindEnum {
  NOTE = 'NOTE',
  TASK = 'TASK',
}

export enum MemoryStatusEnum {
  ACTIVE = 'ACTIVE',
  ARCHIVED = 'ARCHIVED',
}

/** Mirrors MemoryOrder in src/domain/paging.ts. */
export enum MemoryOrderEnum {
  NEWEST = 'NEWEST',
  RECENTLY_UPDATED = 'RECENTLY_UPDATED',
}

registerEnumType(ItemStateEnum, {
  name: 'ItemState',
  description: 'The state of one checklist item. DONE and DROPPED are settled; BLOCKED and FAILED are stuck (not finished, the work needs someone: they keep a knowledge-base task OPEN); PENDING and IN_PROGRESS are active. A session plan can be finished once no step is active.',
  valuesConfig: {
    PENDING: { description: 'Not started.' },
    IN_PROGRESS: { description: 'Being worked on now.' },
    DONE: { description: 'Finished (and, in a plan, checked).' },
    DROPPED: { description: 'Decided against; kept in the list with its reason.' },
    BLOCKED: { description: 'Cannot go on; the note says why.' },
    FAILED: { description: 'Tried and failed; the note says what was checked.' },
  },
});

registerEnumType(TaskStateEnum, {
  name: 'TaskState',
  description: "Derived from a task's items, never set directly.",
  valuesConfig: {
    OPEN: { description: 'Some live item is PENDING, IN_PROGRESS, BLOCKED or FAILED (stuck work still needs someone), or the task has no live items.' },
    COMPLETED: { description: 'Every live item is DONE or DROPPED and at least one is DONE.' },
    CANCELLED: { description: 'Every live item is DROPPED.' },
  },
});

registerEnumType(MemoryKindEnum, {
  name: 'MemoryKind',
  description: 'What a memory is.',
  valuesConfig: { NOTE: { description: 'A plain note.' }, TASK: { description: 'A task: a goal and a checklist.' } },
});

registerEnumType(MemoryOrderEnum, {
  name: 'MemoryOrder',
  description: 'The order of a memories page.',
  valuesConfig: {
    NEWEST: { description: 'Newest first (the order they were created in, reversed).' },
    RECENTLY_UPDATED: { description: 'Most recently changed first: a task an agent changed a moment ago leads the page.' },
  },
});

registerEnumType(MemoryStatusEnum, {
  name: 'MemoryStatus',
  description: 'A closed (COMPLETED or CANCELLED) task is ARCHIVED; reopening it makes it ACTIVE.',
  valuesConfig: {
    ACTIVE: { description: 'In use: an open task, or a note not archived.' },
    ARCHIVED: { description: 'A closed task, or a note archived with archiveMemory.' },
  },
});

/** Mirrors PLAN_PRESETS in src/domain/plan-rules.ts. */
export enum PlanPresetEnum {
  WHOLE_LIST = 'WHOLE_LIST',
  STEP_OPS = 'STEP_OPS',
  PLAN_AND_FINISH = 'PLAN_AND_FINISH',
}

registerEnumType(PlanPresetEnum, {
  name: 'PlanPreset',
  description: 'The rules of one of the three agent to-do tools (../reference/): a starting point for a session\'s rules.',
  valuesConfig: {
    WHOLE_LIST: { description: 'The whole list written each time (whole-list-todo.md): no notes required, 0 to 200 steps of at most 500 characters, the same text at most once. The default.' },
    STEP_OPS: { description: 'Steps worked one by one (step-todo-manual.md): DONE needs a validation; 0 to 200 steps of at most 500 characters, which may repeat.' },
    PLAN_AND_FINISH: {
      description: 'Written once, then worked (plan-and-finish-tasklist.py.txt): 2 to 20 steps, BLOCKED and DROPPED need a reason, notes kept to 400 characters, planOnce.',
    },
  },
});
