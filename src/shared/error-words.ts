/**
 * Errors in words a person can act on. Main refuses a request whose fields do not fit the contract with a message
 * written for developers ("Invalid params for saveSettings: providers.openai-compatible.baseURL: must be an http(s)
 * URL."); the person gets which field, what is wrong with it, and what to do.
 */

/** What each field is called on screen (the last part of the path main names). */
const FIELD: Record<string, string> = {
  baseURL: 'The Base URL',
  model: 'The model name',
  key: 'The API key',
  text: 'The message',
  folder: 'The working folder',
  title: 'The title',
  reason: 'The reason',
  name: 'The name',
  url: 'The address',
};

/** zod's wording of a few checks, said plainly. */
function plain(issue: string): string {
  const long = /^Too big: expected string to have <=\s*(\d+) characters?/.exec(issue);
  if (long) return `is too long (at most ${Number(long[1]).toLocaleString()} characters)`;
  const many = /^Too big: expected array to have <=\s*(\d+) items?/.exec(issue);
  if (many) return `has too many entries (at most ${many[1]})`;
  if (/^Too small: expected string to have >=\s*1 characters?/.test(issue)) return 'is empty';
  if (/^must be an http\(s\) URL$/.test(issue)) return 'is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1';
  if (/^Invalid input/.test(issue)) return 'is not valid';
  return `is not valid (${issue})`;
}

/** A contract refusal in words; any other message as it came. */
export function errorInWords(message: string): string {
  const m = /^Invalid params for [\w.]+: ([\s\S]*?)\.?$/.exec(message);
  if (!m) return message;
  const sentences = m[1]!
    .split('; ')
    .map((issue) => {
      const at = issue.indexOf(': ');
      const path = at === -1 ? 'params' : issue.slice(0, at);
      const what = at === -1 ? issue : issue.slice(at + 2);
      const last = path.split('.').pop() ?? path;
      const field = Object.prototype.hasOwnProperty.call(FIELD, last) ? FIELD[last]! : last === 'params' ? 'The request' : `The field “${last}”`;
      return `${field} ${plain(what)}.`;
    });
  const unique = [...new Set(sentences)];
  return `${unique.join(' ')} Correct ${unique.length > 1 ? 'them' : 'it'} and try again.`;
}
