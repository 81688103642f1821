/**
 * Why a bucket that refused deletion is not empty (`deleteBucket` answered 'not-empty'): whether it holds an
 * object, and how many multipart uploads are in progress. A bucket holding only uploads lists nothing, so the
 * S3 and v4 answers say so and how to abort them (production keeps such a bucket too: docs/s3.md,
 * "DeleteBucket with uploads in progress").
 */
import type { BucketNamespace } from './types.js';

/** What a bucket still holds. */
export interface BucketContents {
  objects: boolean;
  uploads: number;
}

const PAGE = 1000;

/** Whether `name` holds an object, and its uploads in progress (counted page by page). */
export async function bucketContents(buckets: BucketNamespace, name: string): Promise<BucketContents> {
  const objects = (await buckets.bucket(name).list({ limit: 1 })).objects.length > 0;
  let uploads = 0;
  let marker: { keyMarker: string; uploadIdMarker: string } | undefined;
  for (;;) {
    const page = await buckets.listUploads(name, { limit: PAGE, ...marker });
    uploads += page.length;
    if (page.length < PAGE) return { objects, uploads };
    marker = { keyMarker: page.at(-1)!.key, uploadIdMarker: page.at(-1)!.uploadId };
  }
}

/** The refusal's message: S3's and production's sentence, then what is in progress and how to abort it. */
export function notEmptyMessage(contents: BucketContents): string {
  const base = 'The bucket you tried to delete is not empty.';
  if (contents.uploads === 0) return base;
  const uploads = `${contents.uploads} multipart upload${contents.uploads === 1 ? '' : 's'} in progress`;
  const holds = contents.objects ? `It holds objects and ${uploads}.` : `It holds no objects but ${uploads}, which listings do not show.`;
  return `${base} ${holds} Abort them (ListMultipartUploads, then AbortMultipartUpload for each) or set a lifecycle rule that aborts incomplete multipart uploads; an upload left alone is aborted 7 days after it began.`;
}
