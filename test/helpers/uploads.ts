/** A GraphQL multipart request importing `file` as a vRO package, as bytes with its content type. */
export async function packageUpload(
  file: Buffer,
): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: 'mutation($f: File!) { importPackage(file: $f, overwrite: true) { imported } }',
      variables: { f: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append('0', new File([new Uint8Array(file)], 'net.powervro.tests.package'));
  const encoded = new Response(form);
  return {
    body: new Uint8Array(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? '',
  };
}
