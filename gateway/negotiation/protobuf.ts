// The protobuf codec: `application/vnd.platform.protobuf` and `application/vnd.kubernetes.protobuf`, the
// name stock clients send, as one serializer. It covers only the kinds with a protobuf form (api/proto/object-codec.ts);
// negotiation skips it for anything else (406 when nothing else was accepted), and request bodies of other kinds in
// protobuf are a 415. Watch streams are length-prefixed WatchEvent frames (`;stream=watch`), as upstream.
import { errors } from '../../api/meta/errors.js';
import {
  decodeProtobufObject,
  encodeProtobufListInBatches,
  encodeProtobufObject,
  encodeProtobufWatchFrame,
  protobufCovers,
} from '../../api/proto/object-codec.js';
import type { Serializer } from './serializer.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.platform.protobuf';
export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

export function createProtobufSerializer(): Serializer {
  return {
    mediaType: PROTOBUF_MEDIA_TYPE,
    aliases: [KUBERNETES_PROTOBUF_MEDIA_TYPE],
    covers: protobufCovers,
    // Binary: `pretty` has no meaning.
    encode: (value) => encodeProtobufObject(value),
    encodeListInBatches: (list) => encodeProtobufListInBatches(list),
    decode: (body, opts) => {
      if (opts?.expected && !protobufCovers(apiVersionOf(opts.expected), opts.expected.kind)) {
        throw errors.unsupportedMediaType(KUBERNETES_PROTOBUF_MEDIA_TYPE, ['application/json', 'application/yaml']);
      }
      return { value: decodeProtobufObject(body, opts?.expected), duplicateFields: [] };
    },
    streamMediaType: `${PROTOBUF_MEDIA_TYPE};stream=watch`,
    encodeWatchEvent: encodeProtobufWatchFrame,
  } satisfies Serializer;
}

function apiVersionOf(gvk: { group: string; version: string }): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}
