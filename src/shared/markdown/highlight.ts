/**
 * A small syntax highlighter for code blocks: comments, strings, numbers, keywords, per language family. Tokens only,
 * no HTML; very large blocks are left plain so a 1 MB paste cannot stall the window.
 */
export type TokenKind = 'plain' | 'comment' | 'string' | 'number' | 'keyword' | 'literal' | 'add' | 'del' | 'meta';
export interface Token {
  k: TokenKind;
  v: string;
}

const MAX_HIGHLIGHT = 200_000;

const C_LIKE = new Set(
  'abstract as async await break case catch class const continue debugger default defer delete do else enum export extends finally fn for from func function go if impl implements import in instanceof interface let loop match mod module mut namespace new package private protected pub public readonly return select static struct super switch this throw trait try type typeof use var void where while with yield'.split(' '),
);
const PY = new Set('and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case'.split(' '));
const SH = new Set('if then else elif fi for while until do done case esac in function return export local readonly set unset shift exit echo cd source alias'.split(' '));
const SQL = new Set('select from where and or not insert into values update set delete create table drop alter index join left right inner outer on group by order having limit offset as distinct union all primary key null'.split(' '));
const LITERALS = new Set('true false null undefined None True False nil NaN Infinity'.split(' '));

type Family = 'c' | 'py' | 'sh' | 'sql' | 'json' | 'diff' | 'plain';

function family(lang: string): Family {
  const l = lang.toLowerCase();
  if (['js', 'jsx', 'ts', 'tsx', 'javascript', 'typescript', 'java', 'c', 'cpp', 'c++', 'h', 'cs', 'csharp', 'go', 'rust', 'rs', 'kotlin', 'swift', 'php', 'scala', 'dart', 'css', 'scss'].includes(l)) return 'c';
  if (['py', 'python', 'rb', 'ruby', 'toml', 'yaml', 'yml', 'r', 'perl', 'pl', 'ini', 'conf', 'dockerfile', 'makefile', 'make'].includes(l)) return 'py';
  if (['sh', 'bash', 'zsh', 'shell', 'console', 'fish', 'powershell', 'ps1'].includes(l)) return 'sh';
  if (l === 'sql') return 'sql';
  if (l === 'json' || l === 'jsonc' || l === 'json5') return 'json';
  if (l === 'diff' || l === 'patch') return 'diff';
  return l === '' ? 'c' : 'plain';
}

const RULES: Record<Exclude<Family, 'diff' | 'plain'>, RegExp> = {
  c: /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b(?:0x[\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b)|([A-Za-z_$][\w$]*)/y,
  py: /(#[^\n]*)|("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)|(\b\d[\d_]*(?:\.\d+)?\b)|([A-Za-z_][\w]*)/y,
  sh: /((?:^|(?<=\s))#[^\n]*)|("(?:[^"\\]|\\.)*"?|'[^']*'?)|(\b\d+\b)|([A-Za-z_][\w-]*)/y,
  sql: /(--[^\n]*)|('(?:[^']|'')*'?)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_]\w*)/y,
  json: /()("(?:[^"\\\n]|\\.)*"?)|(-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)|([A-Za-z_]\w*)/y,
};

export function highlight(code: string, lang: string): Token[] {
  const fam = family(lang);
  if (fam === 'plain' || code.length > MAX_HIGHLIGHT) return [{ k: 'plain', v: code }];
  if (fam === 'diff') {
    return code.split(/(?<=\n)/).map((line) => ({
      k: line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'meta' : 'plain',
      v: line,
    }));
  }
  const re = RULES[fam];
  const keywords = fam === 'c' ? C_LIKE : fam === 'py' ? PY : fam === 'sh' ? SH : fam === 'sql' ? SQL : null;
  const out: Token[] = [];
  let plain = '';
  let i = 0;
  const push = (k: TokenKind, v: string) => {
    if (plain) out.push({ k: 'plain', v: plain });
    plain = '';
    out.push({ k, v });
  };
  while (i < code.length) {
    re.lastIndex = i;
    const m = re.exec(code);
    if (!m || m[0].length === 0) {
      plain += code[i];
      i++;
      continue;
    }
    if (m[1]) push('comment', m[0]);
    else if (m[2]) push('string', m[0]);
    else if (m[3]) push('number', m[0]);
    else if (m[4]) {
      const word = m[4];
      const kw = keywords && (fam === 'sql' ? keywords.has(word.toLowerCase()) : keywords.has(word));
      if (LITERALS.has(word)) push('literal', word);
      else if (kw) push('keyword', word);
      else plain += word;
    } else plain += m[0];
    i += m[0].length;
  }
  if (plain) out.push({ k: 'plain', v: plain });
  return out;
}
