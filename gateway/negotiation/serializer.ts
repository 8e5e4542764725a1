// A serializer turns bytes of one media type into plain JSON values and back. Decoding never loses information a
// validator needs: duplicate fields are reported (JSON.parse would silently keep the last one).
/** A list object: its metadata fields and its items. */
export type ListValue = Record<string, unknown> & { items: unknown[] };

export interface DecodeResult {
  value: unknown;
  /** Paths of fields that appeared more than once in one object, e.g. `metadata.labels.app`, in document order. */
  duplicateFields: string[];
}

export interface DecodeOptions {
  /** Scan for duplicate fields (default true); pass false when they will be ignored (fieldValidation=Ignore). */
  reportDuplicates?: boolean;
  /**
   * The kind the endpoint reads, for encodings that need it when the body does not say (a protobuf envelope without
   * typeMeta) or that cover only some kinds (415 for the others).
   */
  expected?: { group: string; version: string; kind: string };
}

export interface Serializer {
  /** Canonical media type, e.g. `application/json`. */
  readonly mediaType: string;
  /** Other names accepted for the same codec (Content-Type and Accept). */
  readonly aliases: readonly string[];
  /**
   * Present on encodings that serve only some kinds (protobuf): whether objects of this apiVersion and kind have a
   * form in it. Negotiation passes such a serializer over for other kinds, and for answers whose kind it is not told.
   */
  covers?(apiVersion: string, kind: string): boolean;
  /** False when Table answers are not served in this encoding (as=Table is then passed over, as upstream does). */
  readonly tables?: boolean;
  encode(value: unknown, opts?: { pretty?: boolean }): Buffer;
  /**
   * Optional: a large list (or Table) as chunks, produced lazily, whose concatenation has the same bytes as
   * encode(list, opts), so that encoding it is many short steps. Undefined when this list cannot be chunked; callers
   * then use encode. `encodedItem` offers an item's ready-made encoding (as encode(item) gives it), when one exists,
   * to copy instead of encoding again.
   */
  encodeList?(
    list: ListValue,
    encodedItem?: (item: unknown) => Buffer | undefined,
    opts?: { pretty?: boolean },
  ): Iterable<Buffer> | undefined;
  /**
   * Optional, for encodings that must know a list's whole length before its first byte (protobuf's length-prefixed
   * envelope): the pieces of encode(list), made in batches with the event loop let through between them.
   */
  encodeListInBatches?(list: ListValue): Promise<Buffer[]>;
  /** Throws StatusError 400 naming the problem (line/offset) on malformed input. */
  decode(body: Buffer, opts?: DecodeOptions): DecodeResult;
  /**
   * Media type of a watch stream in this encoding, and one framed event of it. An empty streamMediaType means the
   * encoding cannot stream (YAML, as in kube-apiserver): negotiation never picks it for a watch.
   */
  readonly streamMediaType: string;
  encodeWatchEvent(event: { type: string; object: unknown }): Buffer;
}

/** What the response should be: the serializer plus the transformation asked for with `as=`. */
export interface ResponseTarget {
  serializer: Serializer;
  /**
   * `Table` (meta group/version in tableApiVersion), `PartialObjectMetadata[List]` (only when the caller allowed it),
   * or undefined for the object itself.
   */
  as?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** e.g. `meta.k8s.io/v1` or `meta.platform.io/v1`: echoed as the Table's apiVersion. */
  tableApiVersion?: string;
  /** apiVersion of the `as` kind, whichever it is (equals tableApiVersion for Tables). */
  asApiVersion?: string;
  /** The exact Content-Type header to answer with. */
  contentType: string;
  /** The media type asked for indented output (`;pretty=1`). */
  pretty?: boolean;
}
