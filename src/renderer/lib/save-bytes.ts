/** Bytes main sent (base64) as a Blob saved as a download, and the print frame. */

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
 * Prints a PDF through the system's print dialog: main serves it at a short-lived same-host URL, it loads in a hidden
 * frame of the app's own and that frame prints. Where the frame cannot print (no PDF viewer), the PDF opens in a tab
 * of its own to print from there. The frame stays until the next print (`data-print-frame`), so what was printed can
 * be checked.
 */
export function printUrl(url: string): void {
  document.querySelectorAll('iframe[data-print-frame]').forEach((f) => f.remove());
  const frame = document.createElement('iframe');
  frame.dataset.printFrame = '';
  frame.title = 'Printing';
  frame.setAttribute('aria-hidden', 'true');
  frame.className = 'print-frame';
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
