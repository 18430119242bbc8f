/**
 * Support for tests on the single-node HDFS peer (tests/setup/hdfs.sh): where it is, a
 * WebHdfsFileIO for it, copies of a warehouse tree that keep modification times (orphan cleaning
 * depends on them), and the name node's own listing of a tree.
 *
 * Modification times are set with WebHDFS SETTIMES, and listings for comparisons are read with
 * LISTSTATUS straight from the name node, so that what a test compares is HDFS's view, not what
 * our FileIO reports.
 */
import assert from 'node:assert/strict';
import { createFileIO } from '../../../src/paimon/fs/file-io-factory.js';
import type { FileIO } from '../../../src/paimon/fs/file-io.js';

export interface HdfsPeer {
  /** `hdfs://127.0.0.1:<rpc>`: the name node as Paimon Java and our catalogs address it. */
  uri: string;
  /** `127.0.0.1:<http>`: WebHDFS. */
  http: string;
  user: string;
  /** The catalog properties that point our FileIO at this peer. */
  properties: Record<string, string>;
}

export function hdfsPeer(): HdfsPeer {
  const uri = process.env.HDFS_URI;
  const http = process.env.HDFS_HTTP_ADDRESS;
  assert.ok(uri && http, 'HDFS peer not started: run through tests/run.sh (tests/setup/hdfs.sh exports HDFS_URI, HDFS_HTTP_ADDRESS)');
  const user = process.env.HDFS_USER ?? 'root';
  return { uri, http, user, properties: { 'dfs.namenode.http-address': http, 'hadoop.username': user } };
}

export function hdfsFileIO(peer: HdfsPeer): FileIO {
  return createFileIO(peer.uri, peer.properties);
}

/** The path part of `hdfs://host:port/a/b` (`/a/b`). */
function hdfsPath(peer: HdfsPeer, uri: string): string {
  assert.ok(uri.startsWith(peer.uri + '/'), `${uri} is not on ${peer.uri}`);
  return uri.slice(peer.uri.length);
}

async function webhdfs(peer: HdfsPeer, method: string, uri: string, op: string, params: Record<string, string> = {}): Promise<Response> {
  const q = new URLSearchParams({ op, 'user.name': peer.user, ...params });
  const path = hdfsPath(peer, uri).split('/').map(encodeURIComponent).join('/');
  const res = await fetch(`http://${peer.http}/webhdfs/v1${path}?${q.toString()}`, { method });
  if (!res.ok) throw new Error(`WebHDFS ${op} ${uri}: HTTP ${res.status} ${await res.text()}`);
  return res;
}

/** Sets a file's modification time (epoch ms) on the name node. */
export async function setModificationTime(peer: HdfsPeer, uri: string, millis: number): Promise<void> {
  await (await webhdfs(peer, 'PUT', uri, 'SETTIMES', { modificationtime: String(Math.round(millis)) })).text();
}

/** Every file below `dir` as the name node lists it: relative path -> [size, modification time]. */
export async function nameNodeTree(peer: HdfsPeer, dir: string): Promise<Map<string, [number, number]>> {
  const out = new Map<string, [number, number]>();
  const walk = async (d: string, rel: string): Promise<void> => {
    const r = (await (await webhdfs(peer, 'GET', d, 'LISTSTATUS')).json()) as {
      FileStatuses: { FileStatus: Array<{ pathSuffix: string; type: string; length: number; modificationTime: number }> };
    };
    for (const s of r.FileStatuses.FileStatus) {
      const childRel = rel === '' ? s.pathSuffix : `${rel}/${s.pathSuffix}`;
      if (s.type === 'DIRECTORY') await walk(`${d}/${s.pathSuffix}`, childRel);
      else out.set(childRel, [s.length, s.modificationTime]);
    }
  };
  await walk(dir, '');
  return out;
}

/** The relative paths of every file below `dir` (name node listing), sorted. */
export async function treeFiles(peer: HdfsPeer, dir: string): Promise<string[]> {
  return [...(await nameNodeTree(peer, dir)).keys()].sort();
}

/** Copies the tree `from` to `to` byte for byte, keeping each file's modification time. */
export async function copyTree(peer: HdfsPeer, io: FileIO, from: string, to: string): Promise<void> {
  const files = await nameNodeTree(peer, from);
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 8) {
    await Promise.all(
      entries.slice(i, i + 8).map(async ([rel, [, mtime]]) => {
        assert.equal(await io.copyFile(`${from}/${rel}`, `${to}/${rel}`, false), true, `copy ${rel}`);
        await setModificationTime(peer, `${to}/${rel}`, mtime);
      }),
    );
  }
}
