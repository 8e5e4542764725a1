// Reads back the entries a test gateway logged in klog's text format (the default --logging-format).

const ENTRY = /^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+\] ("(?:[^"\\]|\\.)*")/;

/** The severity letter and the message of a text entry; undefined for anything else (the start banner). */
export function parseEntry(entry: string): { severity: string; message: string } | undefined {
  const m = ENTRY.exec(entry);
  return m ? { severity: m[1], message: JSON.parse(m[2]) as string } : undefined;
}

/** The messages of the entries, in order, without their headers and key/value pairs. */
export function messagesOf(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    const parsed = parseEntry(entry);
    return parsed ? [parsed.message] : [];
  });
}
