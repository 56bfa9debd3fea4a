// The package's main entry point (`interleave`): the explorer, the linearizability checker
// and its models, the history formats and the reports. Each also has an entry point of its
// own: interleave/explore, interleave/lin, interleave/traces, interleave/report. Not here:
// interleave/cli (the --json schemas), and interleave/vitest and interleave/fast-check, which
// would load vitest and fast-check for every user (README.md, package/readme-examples.test.ts).
export * from './checkers/explore/index.ts';
export * from './checkers/lin/index.ts';
export * from './traces/index.ts';
export * from './checkers/report/index.ts';
