/** How much the classifier analyses: over these limits a command is high-risk, unanalysed. */
export const COMMAND_LIMITS = {
  /** Longer commands are not analysed (and so are high-risk). */
  maxChars: 10_000,
  /** Commands (pipeline stages, list members, substitutions, nested `sh -c` commands) per classification. */
  maxSegments: 64,
  /** Nesting depth of `sh -c '…'` strings that are parsed again. */
  maxDepth: 3,
} as const;

/** Thrown by the walk when a command goes over a limit; the analysis turns it into a high-risk reason. */
export class TooComplex extends Error {}
