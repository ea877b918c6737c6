/**
 * The macOS helper: a JXA program run as `osascript -l JavaScript -e <this> <command>` with the JSON arguments on
 * stdin (typed text may be a secret: never on the command line, which other programs can read). It reads the
 * accessibility tree through System Events (the AX API: role, subrole, name, value, position, size, focused, enabled,
 * actions), lists windows front to back with CGWindowListCopyWindowInfo, performs AX actions (AXPress…), and checks
 * the Accessibility and Screen Recording permissions (AXIsProcessTrusted, CGPreflightScreenCaptureAccess). It prints
 * one JSON object: `{"ok":true,"result":…}` or `{"ok":false,"error":"…"}`. Kept as plain JavaScript (no template
 * substitutions) so it can be checked and exercised without a Mac.
 */
export const MAC_HELPER = String.raw`
ObjC.import('Foundation');
ObjC.import('CoreGraphics');
ObjC.import('ApplicationServices');

var MAX_NODES = 3000;

function se() { return Application('System Events'); }

function safe(f, dflt) { try { var v = f(); return v === undefined ? dflt : v; } catch (e) { return dflt; } }

function procsByName(name) {
  return se().processes.whose({ name: name })();
}

function procByPid(pid) {
  var list = se().processes.whose({ unixId: pid })();
  if (!list.length) throw new Error('no process ' + pid);
  return list[0];
}

function cgWindows() {
  var opts = $.kCGWindowListOptionOnScreenOnly | $.kCGWindowListExcludeDesktopElements;
  var list = ObjC.deepUnwrap(ObjC.castRefToObject($.CGWindowListCopyWindowInfo(opts, $.kCGNullWindowID))) || [];
  var out = [];
  for (var i = 0; i < list.length; i++) {
    var w = list[i];
    if (w.kCGWindowLayer !== 0) continue;
    var b = w.kCGWindowBounds || {};
    out.push({ id: String(w.kCGWindowNumber), pid: w.kCGWindowOwnerPID, app: w.kCGWindowOwnerName || '', title: w.kCGWindowName || '',
      bounds: [b.X || 0, b.Y || 0, b.Width || 0, b.Height || 0] });
  }
  return out; // front to back
}

function frontPid() {
  var list = se().processes.whose({ frontmost: true })();
  return list.length ? list[0].unixId() : 0;
}

function pointOf(pr) {
  var p = pr.position, s = pr.size;
  if (!p || !s) return null;
  return [p[0], p[1], s[0], s[1]];
}

function describe(el, depth, path, pr) {
  var role = pr.role || safe(function () { return el.role(); }, '');
  var name = pr.name || pr.title || pr.description || '';
  // Static text carries its words in its value, not a title.
  if (!name && role === 'AXStaticText' && typeof pr.value === 'string') name = pr.value;
  var node = { depth: depth, path: path, check: role, role: role, subrole: pr.subrole || '', name: name,
    bounds: pointOf(pr), focused: !!pr.focused, enabled: pr.enabled !== false, selected: !!pr.selected,
    actions: safe(function () { return el.actions.name(); }, []) };
  var secure = role === 'AXSecureTextField' || pr.subrole === 'AXSecureTextField';
  if (secure) node.password = true;
  else if (pr.value !== undefined && pr.value !== null && typeof pr.value !== 'object') node.value = pr.value;
  if (role === 'AXCheckBox' || role === 'AXRadioButton') node.checked = pr.value === 1 || pr.value === true;
  if (role === 'AXDisclosureTriangle') node.expanded = pr.value === 1;
  if (role === 'AXTextField' || role === 'AXTextArea' || role === 'AXComboBox' || secure) {
    node.editable = safe(function () { return el.attributes.byName('AXValue').settable(); }, false);
  }
  return node;
}

function walk(el, depth, path, out) {
  if (out.length >= MAX_NODES) return;
  var pr = safe(function () { return el.properties(); }, {}) || {};
  out.push(describe(el, depth, path, pr));
  var kids = safe(function () { return el.uiElements(); }, []);
  for (var i = 0; i < kids.length; i++) walk(kids[i], depth + 1, path + '/' + i, out);
}

function pickWindow(p, wanted) {
  var wins = p.windows();
  if (!wins.length) throw new Error('"' + p.name() + '" has no window open.');
  if (!wanted) return { win: wins[0], index: 0 };
  var w = String(wanted).toLowerCase();
  var titles = wins.map(function (x) { return safe(function () { return x.name(); }, '') || ''; });
  for (var i = 0; i < wins.length; i++) if (titles[i].toLowerCase() === w) return { win: wins[i], index: i };
  for (var j = 0; j < wins.length; j++) if (titles[j].toLowerCase().indexOf(w) >= 0) return { win: wins[j], index: j };
  throw new Error('"' + p.name() + '" has no window "' + wanted + '"; its windows: ' + titles.map(function (t) { return JSON.stringify(t); }).join(', ') + '.');
}

function resolve(pid, ref) {
  var bar = ref.lastIndexOf('|');
  var path = bar >= 0 ? ref.slice(0, bar) : ref;
  var role = bar >= 0 ? ref.slice(bar + 1) : '';
  var parts = path.split('/');
  var p = procByPid(pid);
  var el = p.windows()[Number(parts[0])];
  for (var i = 1; el && i < parts.length; i++) el = el.uiElements()[Number(parts[i])];
  if (!el) return null;
  if (role && safe(function () { return el.role(); }, '') !== role) return null;
  return { el: el, proc: p };
}

function windowOf(w, front) {
  return { id: w.id, title: w.title, pid: w.pid, app: w.app, bounds: w.bounds, active: w.pid === front };
}

function named(pid) {
  var p = safe(function () { return procByPid(pid); }, null);
  return p ? p.name() : '';
}

var COMMANDS = {
  permissions: function () {
    var screen = typeof $.CGPreflightScreenCaptureAccess === 'function' ? !!$.CGPreflightScreenCaptureAccess() : true;
    var events = safe(function () { se().processes.whose({ frontmost: true })(); return true; }, false);
    return { accessibility: !!$.AXIsProcessTrusted(), screenRecording: screen, systemEvents: events };
  },
  apps: function () {
    var procs = se().processes.whose({ backgroundOnly: false });
    var names = procs.name(), pids = procs.unixId();
    var apps = [];
    for (var i = 0; i < names.length; i++) apps.push({ name: names[i], pid: pids[i] });
    var front = frontPid();
    var byPid = {};
    for (var k = 0; k < apps.length; k++) byPid[apps[k].pid] = apps[k].name;
    var wins = cgWindows().filter(function (w) { return byPid[w.pid] !== undefined; }).reverse(); // bottom to top, as on Linux
    return { apps: apps, windows: wins.map(function (w) { w.app = byPid[w.pid]; return windowOf(w, front); }) };
  },
  tree: function (a) {
    var procs = procsByName(a.app);
    if (!procs.length) throw new Error('No running app named "' + a.app + '"; computer_apps lists the names.');
    var p = procs[0];
    var picked = pickWindow(p, a.window);
    var nodes = [];
    walk(picked.win, 0, String(picked.index), nodes);
    var pid = p.unixId();
    var title = nodes[0].name;
    var cg = cgWindows().filter(function (w) { return w.pid === pid && w.title === title; })[0];
    return { window: { id: cg ? cg.id : '', title: title, pid: pid, app: a.app, bounds: nodes[0].bounds || [0, 0, 0, 0], active: p.frontmost() && picked.index === 0 }, nodes: nodes };
  },
  element: function (a) {
    var r = resolve(a.pid, a.path);
    if (!r) return null;
    var pr = safe(function () { return r.el.properties(); }, {}) || {};
    var n = describe(r.el, 0, '', pr);
    return { app: r.proc.name(), pid: a.pid, role: n.role, bounds: n.bounds, actions: n.actions, editable: !!n.editable, focused: n.focused };
  },
  action: function (a) {
    var r = resolve(a.pid, a.path);
    if (!r) throw new Error('the element is gone');
    var offered = safe(function () { return r.el.actions.name(); }, []);
    for (var i = 0; i < a.names.length; i++) {
      if (offered.indexOf(a.names[i]) >= 0) { r.el.actions.byName(a.names[i]).perform(); return a.names[i]; }
    }
    return null;
  },
  settext: function (a) {
    var r = resolve(a.pid, a.path);
    if (!r) throw new Error('the element is gone');
    if (!safe(function () { return r.el.attributes.byName('AXValue').settable(); }, false)) return false;
    if (a.replace) { r.el.value = a.text; return true; }
    // Setting the selected text inserts at the caret (replacing a selection), as typing would.
    var sel = r.el.attributes.byName('AXSelectedText');
    if (safe(function () { return sel.settable(); }, false)) { sel.value = a.text; return true; }
    r.el.value = String(safe(function () { return r.el.value(); }, '') || '') + a.text;
    return true;
  },
  focus: function (a) {
    var r = resolve(a.pid, a.path);
    if (!r) return false;
    r.el.focused = true;
    return true;
  },
  front: function () {
    var pid = frontPid();
    var w = cgWindows().filter(function (x) { return x.pid === pid; })[0];
    if (!w) return null;
    w.app = named(pid);
    return windowOf(w, pid);
  },
  at: function (a) {
    var front = frontPid();
    var ws = cgWindows();
    for (var i = 0; i < ws.length; i++) {
      var b = ws[i].bounds;
      if (a.x >= b[0] && a.y >= b[1] && a.x < b[0] + b[2] && a.y < b[1] + b[3]) { ws[i].app = named(ws[i].pid); return windowOf(ws[i], front); }
    }
    return null;
  },
  activate: function (a) {
    var p = procByPid(a.pid);
    p.frontmost = true;
    var wins = p.windows();
    for (var i = 0; i < wins.length; i++) {
      if (safe(function () { return wins[i].name(); }, '') === a.title) { safe(function () { wins[i].actions.byName('AXRaise').perform(); }, null); break; }
    }
    return true;
  }
};

// The arguments come on stdin, never on the command line (typed text may be a secret; other programs can read argv).
function readStdin() {
  var data = $.NSFileHandle.fileHandleWithStandardInput.readDataToEndOfFile;
  return ObjC.unwrap($.NSString.alloc.initWithDataEncoding(data, $.NSUTF8StringEncoding)) || '';
}

function run(argv) {
  var cmd = argv[0];
  try {
    if (!COMMANDS[cmd]) throw new Error('unknown command ' + cmd);
    var input = readStdin();
    var args = input.trim() ? JSON.parse(input) : {};
    return JSON.stringify({ ok: true, result: COMMANDS[cmd](args) });
  } catch (e) {
    return JSON.stringify({ ok: false, error: String((e && e.message) || e) });
  }
}
`;
