/** Where the host reports what went wrong without failing the call: a warning and its details (stderr by default). */
export interface Logger {
  warn(message: string, details?: Record<string, unknown>): void;
}

export const stderrLogger: Logger = {
  warn(message, details) {
    process.stderr.write(`deskhand: ${message}${details ? ` ${JSON.stringify(details)}` : ''}\n`);
  },
};
