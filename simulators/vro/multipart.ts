/** One part of a `multipart/form-data` body, as the simulator reads it. */
export interface FormPart {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  content: Buffer;
}

/** The parts of a multipart body, or the reason it is not one. */
export function parseMultipart(
  contentType: string | undefined,
  body: Buffer,
): FormPart[] | { error: string } {
  const type = /^multipart\/form-data\s*;(.*)$/i.exec(contentType ?? '');
  if (type === null) return { error: 'Expected multipart/form-data' };
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type[1] ?? '');
  const marker = boundary?.[1] ?? boundary?.[2];
  if (marker === undefined) return { error: 'The multipart content type has no boundary' };
  const delimiter = Buffer.from(`--${marker}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return { error: 'The body has no multipart boundary' };
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') return parts;
    const headersStart = afterDelimiter + 2;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    if (headersEnd < 0) return { error: 'A multipart part has no header end' };
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
    if (next < 0) return { error: 'The multipart body is not terminated' };
    const headers = body.subarray(headersStart, headersEnd).toString('utf8').split('\r\n');
    const disposition = headers.find((line) => /^content-disposition:/i.test(line)) ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) return { error: 'A multipart part has no name' };
    const partType = headers.find((line) => /^content-type:/i.test(line));
    parts.push({
      name,
      filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
      contentType: partType?.slice(partType.indexOf(':') + 1).trim(),
      content: body.subarray(headersEnd + 4, next),
    });
    at = next + 2;
  }
}
