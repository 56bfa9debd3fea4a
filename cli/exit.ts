// The exit codes of DESIGN.md: scripts and CI branch on them.
export const EXIT = {
  holds: 0,
  violation: 1,
  inconclusive: 2,
  usage: 64,
  badData: 65,
} as const;
