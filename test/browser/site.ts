/** The local web site the browser tests drive: forms, links, tabs, a dialog, an iframe, an upload, a download, a delayed change. */
import { startServer, type TestServer } from '../web/servers';

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** How long /slow-page takes to answer. */
export const SLOW_PAGE_MS = 6_000;

export interface Site extends TestServer {
  /** Form posts received, parsed. */
  submissions: URLSearchParams[];
  uploads: string[];
  /** The Cookie header of each request to /whoami, with the host it was sent to (undefined: none sent). */
  cookiesSeen: { host: string; cookie: string | undefined }[];
}

export async function startSite(): Promise<Site> {
  const submissions: URLSearchParams[] = [];
  const uploads: string[] = [];
  const cookiesSeen: Site['cookiesSeen'] = [];
  const server = await startServer((req, res, body) => {
    const html = (t: string, b: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(t, b));
    switch (req.url?.split('?')[0]) {
      case '/form':
        return html(
          'Sign up',
          `<h1>Sign up</h1><form method="post" action="/submit">
            <label>Full name <input name="name"></label>
            <label>Password <input type="password" name="password"></label>
            <label>Colour <select name="colour"><option>Red</option><option>Green</option><option>Blue</option></select></label>
            <label><input type="checkbox" name="terms" value="yes"> I agree</label>
            <button type="submit">Send</button></form>`,
        );
      case '/submit':
        submissions.push(new URLSearchParams(body));
        return html('Thanks', `<p>Thanks, ${new URLSearchParams(body).get('name')?.replace(/</g, '&lt;')}</p>`);
      case '/login':
        // A sign-in: a session cookie set by the server, and something kept in the page's local storage.
        res.setHeader('set-cookie', 'sid=signed-in; Max-Age=3600; Path=/; HttpOnly');
        return html('Signed in', `<h1>Signed in</h1><script>localStorage.setItem('draft', 'kept locally')</script>`);
      case '/whoami':
        cookiesSeen.push({ host: String(req.headers.host ?? ''), cookie: req.headers.cookie });
        return html('Who', `<h1>${req.headers.cookie ? 'Signed in' : 'Signed out'}</h1>`);
      case '/a':
        return html('Page A', '<h1>Page A</h1><a href="/b">Go to B</a> <a href="/b" target="_blank">B in a new tab</a>');
      case '/b':
        return html('Page B', '<h1>Page B</h1>');
      case '/dialog':
        return html('Dialog', `<button onclick="document.getElementById('r').textContent = confirm('Delete everything?') ? 'confirmed' : 'cancelled'">Delete</button><p id="r">waiting</p>`);
      case '/frame':
        return html('Frame', `<h1>Outer</h1><iframe src="/inner" title="inner"></iframe>`);
      case '/inner':
        return html('Inner', `<button onclick="this.textContent='Pressed inside'">Press inside</button>`);
      case '/upload':
        return html('Upload', `<form method="post" action="/uploaded" enctype="multipart/form-data"><label>File <input type="file" name="doc"></label><button>Upload</button></form>`);
      case '/uploaded':
        uploads.push(body);
        return html('Uploaded', '<p>Got it</p>');
      case '/delayed':
        return html(
          'Delayed',
          `<button onclick="fetch('/slow').then(r => r.text()).then(t => { const p = document.createElement('p'); p.textContent = 'Loaded: ' + t; document.body.append(p); })">Load</button>`,
        );
      case '/slow':
        return void setTimeout(() => res.end('42'), 700);
      case '/to-slow':
        return html(
          'Before',
          `<h1>Before</h1><a href="/slow-page">Slow page</a> <button onclick="setTimeout(function () { location.href = '/slow-page?later' }, 0)">Go later</button>`,
        );
      case '/slow-page':
        // Longer than the 5 s a click's requests are waited for: only a navigation that is waited for as one arrives.
        return void setTimeout(() => html('Arrived', '<h1>Slow page arrived</h1>'), SLOW_PAGE_MS);
      case '/socket': {
        // Opens a WebSocket to ?port= on load (from the page and from a worker) and shows what happened.
        const port = Number(new URL(req.url!, 'http://x').searchParams.get('port'));
        const probe = `function probe(u){return new Promise(function(r){var w;try{w=new WebSocket(u)}catch(e){return r('throws')}w.onmessage=function(m){r('open:'+m.data)};w.onerror=function(){r('error')};w.onclose=function(c){r('closed:'+c.code)}})}`;
        const worker = `${probe};probe('ws://127.0.0.1:${port}/').then(function(x){postMessage(x)})`;
        return html(
          'Socket',
          `<p id="page">page: waiting</p><p id="worker">worker: waiting</p><script>${probe}
          probe('ws://127.0.0.1:${port}/').then(function(x){document.getElementById('page').textContent='page: '+x});
          var w=new Worker(URL.createObjectURL(new Blob([${JSON.stringify(worker)}],{type:'text/javascript'})));w.onmessage=function(e){document.getElementById('worker').textContent='worker: '+e.data};</script>`,
        );
      }
      case '/counter':
        return html('Counter', `<button onclick="const p = document.getElementById('n'); p.textContent = String(Number(p.textContent) + 1)">Add one</button><p id="n">0</p>`);
      case '/files':
        return html('Files', `<a href="/files/report.csv">Get the report</a>`);
      case '/files/report.csv':
        return res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' }).end('region,total\nnorth,42\n');
      case '/big': {
        const n = Number(new URL(req.url!, 'http://x').searchParams.get('n') ?? 2000);
        const items: string[] = [];
        for (let i = 0; i < n / 4; i++) items.push(`<li><a href="#i${i}">Item ${i}</a> <button>Buy ${i}</button> <input aria-label="Qty ${i}" value="${i}"> <span>Price ${i}.00</span></li>`);
        return html('Big', `<ul>${items.join('')}</ul>`);
      }
      default:
        res.writeHead(404).end('not found');
    }
  });
  return Object.assign(server, { submissions, uploads, cookiesSeen });
}
