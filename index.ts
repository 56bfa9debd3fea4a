// The package's main entry point (`interleave`): the explorer, the linearizability checker
// and its models, the history formats and the reports. Each also has an entry point of its
// own: interleave/explore, interleave/lin, interleave/traces, interleave/report.
export * from './checkers/explore/index.ts';
export * from './checkers/lin/index.ts';
export * from './traces/index.ts';
export * from './checkers/report/index.ts';
