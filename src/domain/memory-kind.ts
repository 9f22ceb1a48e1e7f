export type MemoryKind = 'NOTE' | 'TASK';
