// Types of lin-snapshot.js for the TypeScript that imports it (the bench, the tests).
export declare const SNAPSHOT_NODE_ARGS: string[];
export declare const ROOT: string;
export declare const DEFAULT_DIR: string;
export interface Usable {
  blob: string;
  args: string[];
}
export declare function cliEntry(root?: string): string;
export declare function usableSnapshot(dir?: string, options?: { root?: string; entry?: string; args?: string[] }): (Usable & { reason?: undefined }) | { blob?: undefined; reason: string };
export declare function snapshotCommand(usable: Usable, script: string, userArgs: string[]): [string, string[]];
export declare function linFromSnapshot(argv: string[], env?: NodeJS.ProcessEnv): Promise<number | undefined>;
export declare function buildSnapshot(options?: { dir?: string; root?: string; entry?: string; args?: string[] }): Promise<string>;
