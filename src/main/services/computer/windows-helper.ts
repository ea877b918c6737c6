/**
 * The Windows helper: a PowerShell program over UI Automation (`UIAutomationClient`), started once and kept running.
 * It reads one JSON request per line on stdin (`{"id":1,"cmd":"tree","args":{…}}`) and writes one JSON reply per line
 * (`{"id":1,"ok":true,"result":…}`). The tree is walked with the control-view TreeWalker; actions go through
 * InvokePattern, TogglePattern, SelectionItemPattern and ExpandCollapsePattern, text through ValuePattern. Elements
 * are found again by window handle and child indices, and must still have the same UIA runtime id.
 */
export const WIN_HELPER = String.raw`
$ErrorActionPreference = 'Stop'
[Console]::InputEncoding = [System.Text.Encoding]::UTF8
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
Add-Type -AssemblyName UIAutomationClient
Add-Type -AssemblyName UIAutomationTypes
Add-Type -TypeDefinition @"
using System;
using System.Runtime.InteropServices;
public static class DeskhandUser32 {
  [DllImport("user32.dll")] public static extern IntPtr GetForegroundWindow();
  [DllImport("user32.dll")] public static extern bool SetForegroundWindow(IntPtr hWnd);
  [DllImport("user32.dll")] public static extern bool ShowWindow(IntPtr hWnd, int nCmdShow);
  [DllImport("user32.dll")] public static extern bool IsIconic(IntPtr hWnd);
}
"@

$UIA = [System.Windows.Automation.AutomationElement]
$Walker = [System.Windows.Automation.TreeWalker]::ControlViewWalker
$MaxNodes = 3000
$Patterns = @{
  'Invoke' = [System.Windows.Automation.InvokePattern]::Pattern
  'Toggle' = [System.Windows.Automation.TogglePattern]::Pattern
  'SelectionItem' = [System.Windows.Automation.SelectionItemPattern]::Pattern
  'ExpandCollapse' = [System.Windows.Automation.ExpandCollapsePattern]::Pattern
  'Value' = [System.Windows.Automation.ValuePattern]::Pattern
  'RangeValue' = [System.Windows.Automation.RangeValuePattern]::Pattern
}

function Get-Pattern($el, $name) {
  $p = $null
  if ($el.TryGetCurrentPattern($Patterns[$name], [ref]$p)) { return $p }
  return $null
}

function Get-Bounds($el) {
  $r = $el.Current.BoundingRectangle
  if ($r.IsEmpty -or [double]::IsInfinity($r.X)) { return $null }
  return @([int]$r.X, [int]$r.Y, [int]$r.Width, [int]$r.Height)
}

function Get-AppName([int]$procId) {
  try { return [System.Diagnostics.Process]::GetProcessById($procId).ProcessName } catch { return '' }
}

function Describe($el, [int]$depth, [string]$path) {
  $c = $el.Current
  $actions = New-Object System.Collections.Generic.List[string]
  foreach ($n in @('Invoke', 'Toggle', 'SelectionItem', 'ExpandCollapse')) { if ($null -ne (Get-Pattern $el $n)) { $actions.Add($n) } }
  $node = [ordered]@{
    depth = $depth; path = $path; check = (($el.GetRuntimeId()) -join '.')
    role = $c.ControlType.ProgrammaticName; name = $c.Name
    bounds = (Get-Bounds $el); focused = $c.HasKeyboardFocus; enabled = $c.IsEnabled; offscreen = $c.IsOffscreen
    actions = $actions.ToArray()
  }
  if ($c.IsPassword) { $node.password = $true }
  $v = Get-Pattern $el 'Value'
  if ($null -ne $v) {
    $node.editable = -not $v.Current.IsReadOnly
    if (-not $c.IsPassword) { $node.value = $v.Current.Value }
  } else {
    $rv = Get-Pattern $el 'RangeValue'
    if ($null -ne $rv) { $node.value = $rv.Current.Value }
  }
  $t = Get-Pattern $el 'Toggle'
  if ($null -ne $t) { $node.checked = ($t.Current.ToggleState -eq [System.Windows.Automation.ToggleState]::On) }
  $s = Get-Pattern $el 'SelectionItem'
  if ($null -ne $s) { $node.selected = $s.Current.IsSelected }
  $e = Get-Pattern $el 'ExpandCollapse'
  if ($null -ne $e) {
    $st = $e.Current.ExpandCollapseState
    if ($st -ne [System.Windows.Automation.ExpandCollapseState]::LeafNode) { $node.expanded = ($st -eq [System.Windows.Automation.ExpandCollapseState]::Expanded) }
  }
  return $node
}

function Walk($el, [int]$depth, [string]$path, $out) {
  if ($out.Count -ge $MaxNodes) { return }
  $out.Add((Describe $el $depth $path))
  $i = 0
  $child = $Walker.GetFirstChild($el)
  while ($null -ne $child) {
    Walk $child ($depth + 1) ($path + '/' + $i) $out
    $i++
    $child = $Walker.GetNextSibling($child)
  }
}

function Top-Windows {
  $cond = [System.Windows.Automation.Condition]::TrueCondition
  return @($UIA::RootElement.FindAll([System.Windows.Automation.TreeScope]::Children, $cond))
}

function Window-Info($w, [IntPtr]$front) {
  $c = $w.Current
  return [ordered]@{ id = ('0x{0:x}' -f $c.NativeWindowHandle); title = $c.Name; pid = $c.ProcessId; app = (Get-AppName $c.ProcessId); bounds = (Get-Bounds $w); active = ([IntPtr]$c.NativeWindowHandle -eq $front) }
}

function Top-Of($el) {
  $raw = [System.Windows.Automation.TreeWalker]::RawViewWalker
  $root = $UIA::RootElement
  while ($null -ne $el) {
    $parent = $raw.GetParent($el)
    if ($null -eq $parent -or [System.Windows.Automation.Automation]::Compare($parent, $root)) { return $el }
    $el = $parent
  }
  return $null
}

function Resolve-Ref([int]$procId, [string]$ref) {
  $bar = $ref.LastIndexOf('|')
  $path = if ($bar -ge 0) { $ref.Substring(0, $bar) } else { $ref }
  $runtime = if ($bar -ge 0) { $ref.Substring($bar + 1) } else { '' }
  $parts = $path.Split('/')
  $el = $UIA::FromHandle([IntPtr][Convert]::ToInt64($parts[0], 16))
  for ($k = 1; $null -ne $el -and $k -lt $parts.Length; $k++) {
    $child = $Walker.GetFirstChild($el)
    for ($j = 0; $null -ne $child -and $j -lt [int]$parts[$k]; $j++) { $child = $Walker.GetNextSibling($child) }
    $el = $child
  }
  if ($null -eq $el) { return $null }
  if ($el.Current.ProcessId -ne $procId) { return $null }
  if ($runtime -and (($el.GetRuntimeId()) -join '.') -ne $runtime) { return $null }
  return $el
}

$Commands = @{
  'probe' = { param($a) return @{ uia = $true; elevated = ([Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator) } }
  'apps' = { param($a)
    $front = [DeskhandUser32]::GetForegroundWindow()
    $wins = New-Object System.Collections.Generic.List[object]
    $apps = @{}
    foreach ($w in (Top-Windows)) {
      $info = Window-Info $w $front
      if (-not $info.app) { continue }
      $wins.Insert(0, $info)
      $apps[[string]$info.pid] = @{ name = $info.app; pid = $info.pid }
    }
    return @{ apps = @($apps.Values); windows = $wins.ToArray() }
  }
  'tree' = { param($a)
    $front = [DeskhandUser32]::GetForegroundWindow()
    $mine = @(Top-Windows | Where-Object { (Get-AppName $_.Current.ProcessId) -eq $a.app })
    if ($mine.Count -eq 0) { throw ('No running app named "' + $a.app + '" has a window; computer_apps lists the names.') }
    $win = $mine[0]
    if ($a.window) {
      $w = ([string]$a.window).ToLower()
      $win = @($mine | Where-Object { $_.Current.Name.ToLower() -eq $w -or ('0x{0:x}' -f $_.Current.NativeWindowHandle) -eq $w })[0]
      if ($null -eq $win) { $win = @($mine | Where-Object { $_.Current.Name.ToLower().Contains($w) })[0] }
      if ($null -eq $win) { throw ('"' + $a.app + '" has no window "' + $a.window + '"; its windows: ' + ((@($mine | ForEach-Object { '"' + $_.Current.Name + '"' })) -join ', ') + '.') }
    } else {
      $active = @($mine | Where-Object { [IntPtr]$_.Current.NativeWindowHandle -eq $front })
      if ($active.Count -gt 0) { $win = $active[0] }
    }
    $nodes = New-Object System.Collections.Generic.List[object]
    Walk $win 0 ('0x{0:x}' -f $win.Current.NativeWindowHandle) $nodes
    return @{ window = (Window-Info $win $front); nodes = $nodes.ToArray() }
  }
  'element' = { param($a)
    $el = Resolve-Ref $a.pid $a.path
    if ($null -eq $el) { return $null }
    $n = Describe $el 0 ''
    return @{ app = (Get-AppName $a.pid); pid = $a.pid; role = $n.role; bounds = $n.bounds; actions = $n.actions; editable = [bool]$n.editable; focused = $n.focused }
  }
  'action' = { param($a)
    $el = Resolve-Ref $a.pid $a.path
    if ($null -eq $el) { throw 'the element is gone' }
    foreach ($name in $a.names) {
      $p = Get-Pattern $el $name
      if ($null -eq $p) { continue }
      switch ($name) {
        'Invoke' { $p.Invoke() }
        'Toggle' { $p.Toggle() }
        'SelectionItem' { $p.Select() }
        'ExpandCollapse' { if ($p.Current.ExpandCollapseState -eq [System.Windows.Automation.ExpandCollapseState]::Expanded) { $p.Collapse() } else { $p.Expand() } }
      }
      return $name
    }
    return $null
  }
  'settext' = { param($a)
    $el = Resolve-Ref $a.pid $a.path
    if ($null -eq $el) { throw 'the element is gone' }
    $v = Get-Pattern $el 'Value'
    if ($null -eq $v -or $v.Current.IsReadOnly) { return $false }
    # ValuePattern has no caret: without replace the text is appended.
    if ($a.replace) { $v.SetValue([string]$a.text) } else { $v.SetValue($v.Current.Value + [string]$a.text) }
    return $true
  }
  'focus' = { param($a)
    $el = Resolve-Ref $a.pid $a.path
    if ($null -eq $el) { return $false }
    $el.SetFocus()
    return $true
  }
  'front' = { param($a)
    $front = [DeskhandUser32]::GetForegroundWindow()
    if ($front -eq [IntPtr]::Zero) { return $null }
    return (Window-Info ($UIA::FromHandle($front)) $front)
  }
  'at' = { param($a)
    $front = [DeskhandUser32]::GetForegroundWindow()
    $el = $UIA::FromPoint((New-Object System.Windows.Point([double]$a.x, [double]$a.y)))
    $top = Top-Of $el
    if ($null -eq $top) { return $null }
    return (Window-Info $top $front)
  }
  'activate' = { param($a)
    $h = [IntPtr][Convert]::ToInt64($a.id, 16)
    if ([DeskhandUser32]::IsIconic($h)) { [DeskhandUser32]::ShowWindow($h, 9) | Out-Null }
    return [DeskhandUser32]::SetForegroundWindow($h)
  }
}

while ($true) {
  $line = [Console]::In.ReadLine()
  if ($null -eq $line) { break }
  if (-not $line.Trim()) { continue }
  $id = $null
  try {
    $req = ConvertFrom-Json $line
    $id = $req.id
    if (-not $Commands.ContainsKey($req.cmd)) { throw ('unknown command ' + $req.cmd) }
    $result = & $Commands[$req.cmd] $req.args
    $reply = [ordered]@{ id = $id; ok = $true; result = $result }
  } catch {
    $reply = [ordered]@{ id = $id; ok = $false; error = $_.Exception.Message }
  }
  [Console]::Out.WriteLine((ConvertTo-Json -InputObject $reply -Depth 8 -Compress))
  [Console]::Out.Flush()
}
`;
