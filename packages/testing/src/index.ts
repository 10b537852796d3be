export { buttonLabels, findButton } from './find-button.js';
export type { RecordedRequest } from './outbound.js';
export {
  createTestPlatform,
  type OAuthFlowOptions,
  type RenderResult,
  TestPlatform,
  type TestPlatformOptions,
} from './test-platform.js';
