import { graphiqlAssetsPath } from './graphiql-page.ts';

interface Asset {
  body: string | Uint8Array<ArrayBuffer>;
  type: string;
}

let assets: Promise<Map<string, Asset>> | undefined;

/** The bundled GraphiQL (from the installed package), loaded on first use: 9 MB that most API calls never need. */
function loadAssets(): Promise<Map<string, Asset>> {
  assets ??= import('@graphql-yoga/render-graphiql/graphiql').then((bundle) => {
    const js = 'text/javascript; charset=utf-8';
    return new Map<string, Asset>([
      ['graphiql.js', { body: bundle.js, type: js }],
      ['graphiql.css', { body: bundle.css, type: 'text/css; charset=utf-8' }],
      ['editorWorkerService.worker.js', { body: bundle.editorWorkerService, type: js }],
      ['json.worker.js', { body: bundle.jsonWorker, type: js }],
      ['graphql.worker.js', { body: bundle.graphqlWorker, type: js }],
      ['favicon', dataUrlAsset(bundle.favicon)],
    ]);
  });
  return assets;
}

function dataUrlAsset(url: string): Asset {
  const match = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(url);
  if (match === null) return { body: '', type: 'image/x-icon' };
  const [, type = 'image/x-icon', base64, data = ''] = match;
  return {
    body:
      base64 === undefined ? decodeURIComponent(data) : new Uint8Array(Buffer.from(data, 'base64')),
    type,
  };
}

/** Answers a request for a GraphiQL asset, or undefined when the path is not one. */
export async function serveGraphiqlAsset(pathname: string): Promise<Response | undefined> {
  if (!pathname.startsWith(`${graphiqlAssetsPath}/`)) return undefined;
  const asset = (await loadAssets()).get(pathname.slice(graphiqlAssetsPath.length + 1));
  if (asset === undefined) return new Response('Not found', { status: 404 });
  return new Response(asset.body, {
    headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' },
  });
}
