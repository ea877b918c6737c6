/**
 * Redaction applied on every sink (model, store, events). This first layer replaces exact values of credential-named
 * environment variables; the security core extends it with vault secrets, encodings and credential shapes.
 */
export interface Redactor {
  redact(text: string): string;
}

const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
/** Short values would redact ordinary words; real credentials are longer than this. */
const MIN_SECRET_LENGTH = 8;

export class EnvRedactor implements Redactor {
  private readonly secrets: { name: string; value: string }[];

  constructor(env: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}) {
    const found = new Map<string, string>();
    for (const [name, value] of Object.entries(env)) {
      if (value && value.length >= MIN_SECRET_LENGTH && CREDENTIAL_NAME.test(name)) found.set(value, name);
    }
    for (const [name, value] of Object.entries(extra)) if (value.length >= MIN_SECRET_LENGTH) found.set(value, name);
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...found.entries()].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
  }

  redact(text: string): string {
    let out = text;
    for (const { name, value } of this.secrets) {
      if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
    }
    return out;
  }
}
