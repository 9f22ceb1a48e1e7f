/** Types for web/src/dashboard-documents.mjs (the page, the bench and the tests import it). */
export declare const REF: string;
export declare const COMMENT: string;
export declare const BRIEF: string;
export declare const CLAIM_FIELDS: string;
export declare const ITEM: string;
export declare const COMMENT_PAGE: number;
export declare const TASK_COMMENTS: string;
export declare const META: string;
export declare const TASK_HEAD: string;
export declare const TASK_ITEMS: string;
export declare const TASK_OPENED: string;
export declare const FIRST_PAGE: number;
export declare const PAGE: number;
