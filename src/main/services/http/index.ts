/**
 * The HTTP service as the web family sees it. Every request resolves each destination once and connects to exactly
 * the address it judged (a `lookup` hook on the connection), so DNS cannot change between the check and the connect;
 * a private address is reached only where the decision cleared it. Redirects are followed by hand: each hop is
 * re-checked the same way and counted; credentials and custom headers are dropped and bodies never forwarded across
 * origins. Responses are cut at a byte cap and a time cap while streaming, so memory never grows past the cap.
 */
export interface HttpRequestSpec {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Bytes of (decoded) body kept; the rest is not read. */
  maxBytes: number;
  /** The whole exchange, redirects and body included. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** At most 10. 0: redirects are returned, not followed. */
  maxRedirects?: number;
  /**
   * Private destinations the decision cleared: `host:port` → the addresses approved (null: any address of that host).
   * Every other private address is refused at connect time.
   */
  allowPrivate?: ReadonlyMap<string, ReadonlySet<string> | null>;
  /**
   * Judges each redirect hop before it is followed: a reason stops the redirect there (nothing is sent to the hop).
   * The web tools use it to hold a call a URL grant cleared to the grants on every hop (path included).
   */
  hopCheck?: (url: string) => string | null;
}

export interface RedirectHop {
  status: number;
  from: string;
  to: string;
}

export interface HttpResponseData {
  /** The URL the response came from (after redirects). */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was cut: at the byte cap (`bytes`) or when the time cap passed while it streamed (`time`). */
  cut: 'bytes' | 'time' | null;
  redirects: RedirectHop[];
  /** A redirect that was not followed, and why (a private destination, another scheme, a body across origins…). */
  stoppedRedirect: { to: string; reason: string } | null;
  /** The address the final response came from. */
  remoteAddress: string | null;
}

/** Why a destination was refused before anything was sent to it. */
const REFUSED = Symbol.for('deskhand.DestinationRefused');

export class DestinationRefused extends Error {
  readonly [REFUSED] = true;
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
  }
  static isInstance(e: unknown): e is DestinationRefused {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[REFUSED] === true;
  }
}

export interface HttpService {
  request(spec: HttpRequestSpec): Promise<HttpResponseData>;
  /** The addresses a host resolves to now (for the decision; the connect resolves again and checks again). */
  resolve(host: string, signal?: AbortSignal): Promise<string[]>;
}
