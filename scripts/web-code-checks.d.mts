/** Types for scripts/web-code-checks.mjs (test/operations/web-code-is-typed.test.ts imports it). */
/** Every `any` written as a type in web/src, as "file:line". */
export declare function anysIn(root?: string): string[];
/** Imports into web/src/views/ from a file outside it (other than the entry), as "file → target". */
export declare function importsBackUp(root?: string): string[];
