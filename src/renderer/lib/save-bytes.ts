/** Bytes main sent (base64) as a Blob: saved as a download, or printed from a hidden frame. */

export function base64Blob(base64: string, mime: string): Blob {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type: mime });
}

/** A download of the bytes under `name` (the browser's downloads, or the app's save dialog). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Prints a PDF through the system's print dialog: the PDF loads in a hidden frame of the app's own origin (a blob:
 * URL) and that frame prints. Where the frame cannot print (no PDF viewer), the PDF opens in a tab of its own to print
 * from there. The frame stays until the next print (`data-print-frame`), so what was printed can be checked.
 */
export function printPdf(blob: Blob): void {
  document.querySelectorAll('iframe[data-print-frame]').forEach((f) => {
    URL.revokeObjectURL((f as HTMLIFrameElement).src);
    f.remove();
  });
  const url = URL.createObjectURL(blob);
  const frame = document.createElement('iframe');
  frame.dataset.printFrame = '';
  frame.title = 'Printing';
  frame.setAttribute('aria-hidden', 'true');
  frame.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;border:0;opacity:0';
  frame.onload = () => {
    try {
      frame.contentWindow!.focus();
      frame.contentWindow!.print();
    } catch {
      window.open(url, '_blank', 'noopener');
    }
  };
  frame.src = url;
  document.body.appendChild(frame);
}
