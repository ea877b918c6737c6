/**
 * OAuth for HTTP MCP servers: the SDK's `OAuthClientProvider`, with everything it keeps (tokens, the registered
 * client, the PKCE verifier) in the OS keyring under `mcp-oauth.<server>.*` — never in the database or a file. The SDK
 * drives discovery, registration, refresh and the code exchange; a sign-in that needs a browser is handed to
 * `openBrowser` (the desktop app opens it; the CLI prints it).
 */
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from '@modelcontextprotocol/client';
import type { SecretStore } from '../vault/secret-store';

export const oauthAccount = (server: string, what: 'tokens' | 'client' | 'verifier'): string => `mcp-oauth.${server}.${what}`;

export class VaultOAuthProvider implements OAuthClientProvider {
  constructor(
    private readonly server: string,
    private readonly keyring: SecretStore,
    private readonly openBrowser: (url: URL) => void | Promise<void>,
    private readonly redirect = 'http://127.0.0.1:33418/oauth/callback',
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Deskhand',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return this.readJson<OAuthClientInformationMixed>('client');
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.keyring.set(oauthAccount(this.server, 'client'), JSON.stringify(info));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return this.readJson<OAuthTokens>('tokens');
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.keyring.set(oauthAccount(this.server, 'tokens'), JSON.stringify(tokens));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.openBrowser(url);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.keyring.set(oauthAccount(this.server, 'verifier'), verifier);
  }

  async codeVerifier(): Promise<string> {
    const v = await this.keyring.get(oauthAccount(this.server, 'verifier'));
    if (!v) throw new Error(`No sign-in is in progress for MCP server ${this.server}.`);
    return v;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const which: ('tokens' | 'client' | 'verifier')[] = scope === 'all' ? ['tokens', 'client', 'verifier'] : scope === 'discovery' ? [] : [scope];
    for (const w of which) await this.keyring.delete(oauthAccount(this.server, w));
  }

  private async readJson<T>(what: 'tokens' | 'client'): Promise<T | undefined> {
    const raw = await this.keyring.get(oauthAccount(this.server, what));
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  }
}
