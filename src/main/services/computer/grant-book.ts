/** The app grants as the computer-use service reads them, over the store's `app-grants` module. */
import type { appGrantsModule, AppGrantRow } from '../store/modules/app-grants';
import { CAPABILITIES, type AppGrant, type AppGrantBook, type Capability } from './index';

type Queries = ReturnType<typeof appGrantsModule.queries>;

export class StoreGrantBook implements AppGrantBook {
  constructor(
    private readonly rows: Queries,
    private readonly now: () => number = Date.now,
  ) {}

  private live(row: AppGrantRow | null): AppGrant | null {
    if (!row || row.revoked_at !== null) return null;
    if (row.expires_at !== null && row.expires_at <= this.now()) return null;
    const caps = (JSON.parse(row.capabilities) as string[]).filter((c): c is Capability => (CAPABILITIES as readonly string[]).includes(c));
    return { app: row.app, capabilities: caps, createdAt: row.created_at, expiresAt: row.expires_at };
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

  grant(app: string, capabilities: readonly Capability[], minutes: number | null): AppGrant {
    const caps = CAPABILITIES.filter((c) => capabilities.includes(c));
    return this.live(this.rows.grant(app, caps, minutes ? this.now() + minutes * 60_000 : null))!;
  }

  revoke(app: string): boolean {
    return this.rows.revoke(app);
  }

  isGranted(app: string, capability: Capability): boolean {
    return !!this.get(app)?.capabilities.includes(capability);
  }

  wasRevoked(app: string): boolean {
    const row = this.rows.get(app);
    return !!row && row.revoked_at !== null;
  }
}
