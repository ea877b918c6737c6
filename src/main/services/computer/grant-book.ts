/** The app grants as the computer-use service reads them, over the store's `app-grants` module. */
import type { appGrantsModule, AppGrantRow } from '../store/modules/app-grants';
import { CAPABILITIES, type AppGrant, type AppGrantBook, type Capability } from './index';

type Queries = ReturnType<typeof appGrantsModule.queries>;

export class StoreGrantBook implements AppGrantBook {
  constructor(
    private readonly rows: Queries,
    private readonly now: () => number = Date.now,
  ) {}

  /** Each live capability of the row with its end (a row from before per-capability ends: the row's end for all). */
  private liveEnds(row: AppGrantRow | null): Partial<Record<Capability, number | null>> {
    if (!row || row.revoked_at !== null) return {};
    const now = this.now();
    const perCap = row.cap_expiry ? (JSON.parse(row.cap_expiry) as Record<string, number | null>) : null;
    const ends: Partial<Record<Capability, number | null>> = {};
    for (const c of JSON.parse(row.capabilities) as string[]) {
      if (!(CAPABILITIES as readonly string[]).includes(c)) continue;
      const end = perCap && Object.prototype.hasOwnProperty.call(perCap, c) ? perCap[c]! : row.expires_at;
      if (end === null || end > now) ends[c as Capability] = end;
    }
    return ends;
  }

  private live(row: AppGrantRow | null): AppGrant | null {
    const ends = this.liveEnds(row);
    const caps = CAPABILITIES.filter((c) => Object.prototype.hasOwnProperty.call(ends, c));
    if (!row || !caps.length) return null;
    const values = caps.map((c) => ends[c]!);
    const expiresAt = values.some((v) => v === null) ? null : Math.max(...(values as number[]));
    return { app: row.app, capabilities: caps, createdAt: row.created_at, expiresAt, ends: ends as Record<Capability, number | null> };
  }

  list(): AppGrant[] {
    return this.rows
      .all()
      .map((r) => this.live(r))
      .filter((g): g is AppGrant => !!g);
  }

  get(app: string): AppGrant | null {
    return this.live(this.rows.get(app));
  }

  /**
   * Adds these capabilities to what the app already holds (a revoked or expired grant holds nothing): each named
   * capability ends `minutes` from now (or lasts until revoked); the others keep their own ends.
   */
  grant(app: string, capabilities: readonly Capability[], minutes: number | null): AppGrant {
    const ends = this.liveEnds(this.rows.get(app));
    const end = minutes ? this.now() + minutes * 60_000 : null;
    for (const c of CAPABILITIES) if (capabilities.includes(c)) ends[c] = end;
    const ordered: Record<string, number | null> = {};
    for (const c of CAPABILITIES) if (Object.prototype.hasOwnProperty.call(ends, c)) ordered[c] = ends[c]!;
    return this.live(this.rows.grant(app, ordered))!;
  }

  revoke(app: string): boolean {
    return this.rows.revoke(app);
  }

  isGranted(app: string, capability: Capability): boolean {
    return !!this.get(app)?.capabilities.includes(capability);
  }

  endOf(app: string, capability: Capability): number | null | undefined {
    const ends = this.liveEnds(this.rows.get(app));
    return Object.prototype.hasOwnProperty.call(ends, capability) ? ends[capability] : undefined;
  }

  wasRevoked(app: string): boolean {
    const row = this.rows.get(app);
    return !!row && row.revoked_at !== null;
  }
}
