/**
 * The one guarded reader's contract: how every layer reads a file *because of workspace content* (skills, a project's
 * MCP file and the scripts it runs, plan files, instruction files such as AGENTS.md). The implementation lives in the
 * runtime (runtime/context/content-reader.ts, on the path guard); hosts build one and inject it into services, which cannot
 * import the runtime. Pure types: no Node here.
 */

export interface ContentReadOptions {
  /**
   * The folders this content belongs to: the conversation's workspace roots, or the person's own folder it was found
   * in (`<data dir>/skills`). A file that lands outside all of them is `outside` (untrusted content).
   */
  roots: readonly string[];
  /**
   * The folder the file must land in once every symbolic link is followed (a skill's own folder, a workspace's
   * `.deskhand`). A file leaving it is refused, whatever it points at.
   */
  within?: string;
  /**
   * The folder `within` was found in (the workspace root, the skills folder): no symbolic link may stand between
   * them, so a linked `within` (`.deskhand/skills/x → ~/.ssh`) is refused too. Requires `within`.
   */
  anchor?: string;
  /** Larger files are refused (default 1 MiB). */
  maxBytes?: number;
}

/** A file read through the guard. */
export interface ContentFile {
  /** The path as asked for, absolute. */
  path: string;
  /** Where it really is (every link followed). */
  resolved: string;
  text: string;
  /** sha256 of the bytes read, hex. */
  sha256: string;
  size: number;
  /** The file lies outside every root: its content is untrusted. */
  outside: boolean;
}

/**
 * Reads files the way content-driven reads must be read: links resolved and contained, sensitive paths (credentials,
 * shell start-up files and history, VCS config, Deskhand's data outside the given roots) refused, the opened file
 * verified to be the one checked. Refusals throw a `DeskhandError` with code `denied` and a sentence saying why.
 */
export interface ContentReader {
  read(path: string, opts: ContentReadOptions): ContentFile;
  /** Names in a folder (sorted), under the same containment as `read`; missing folder: empty. */
  list(dir: string, opts: ContentReadOptions): string[];
}
