// Types for the plain-JavaScript stale-build check (it runs before dist/ exists), for the TypeScript that reuses it.
export declare const SERVER_SOURCE_DIRS: readonly string[];
export declare function sourceNewerThan(root: string, builtAtMs: number): string | undefined;
export declare function staleBuildWarning(root: string, entry: string): string | undefined;
