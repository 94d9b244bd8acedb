// Saving a file the client holds (a Blob) as a download: a temporary object URL and link.

/** Offers `blob` to the browser as a download named `filename`. */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.rel = "noopener";
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The browser has started the download from the link; the URL may go once it has read it.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
