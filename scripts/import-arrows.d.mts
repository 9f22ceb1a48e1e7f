/** Types for the parts of scripts/import-arrows.mjs that test/architecture.test.ts imports. */
export interface Arrow { from: string; to: string; files: Set<string> }
export declare const KNOWN_EXCEPTIONS: string[];
export declare function roomOf(relative: string): string | null;
export declare function layerOf(room: string): number;
export declare function importArrows(root?: string): Arrow[];
export declare function folderCycles(arrows: readonly Pick<Arrow, 'from' | 'to'>[]): string[][];
export declare function arrowsBackUp<T extends Pick<Arrow, 'from' | 'to'>>(arrows: readonly T[]): T[];
