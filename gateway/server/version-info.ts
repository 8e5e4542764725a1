// The version this server reports (/version, the kubeconfig's banner, discovery's serving version): the Kubernetes
// release whose API it serves, marked as Gatehouse's build.
import type { VersionInfo } from '../app.js';

export const KUBERNETES_VERSION = { major: '1', minor: '32', patch: '0' };

export function versionInfo(): VersionInfo {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: `v${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor}.${KUBERNETES_VERSION.patch}+gatehouse`,
    gitCommit: process.env.GATEHOUSE_GIT_COMMIT ?? 'unknown',
    gitTreeState: 'clean',
    buildDate: new Date(0).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${arch}`,
  };
}
