/** Types for the parts of bench/workloads.mjs the tests import. */
export declare const DASHBOARD: string;
