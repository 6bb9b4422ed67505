// Types of build.mjs, for the TypeScript that calls it (test/run.ts).
export declare const root: string;
export declare function buildIsFresh(): boolean;
export declare function ensureBuild(options?: { force?: boolean; quiet?: boolean }): void;
export declare function compileTests(outDir: string): Promise<void>;
