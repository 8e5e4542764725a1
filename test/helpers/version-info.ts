import type { VersionInfo } from '../../gateway/app.js';

/** What /version reports for a gateway a test assembles itself from createGateway. */
export const TEST_VERSION: VersionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '',
  gitTreeState: '',
  buildDate: '',
  goVersion: '',
  compiler: '',
  platform: '',
};
