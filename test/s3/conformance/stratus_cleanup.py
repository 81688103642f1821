"""pytest plugin for running ceph/s3-tests against Stratus (loaded by run.sh with `-p stratus_cleanup`).

The suite empties and deletes its buckets between tests and expects DeleteBucket to succeed while multipart
uploads are still in progress (AWS discards them). Stratus, like production's object store, refuses to delete a
bucket that has an upload in progress (BucketNotEmpty), so one test leaving an upload behind would fail the
cleanup of every later test. This plugin aborts a bucket's uploads before the suite's own cleanup deletes it;
it changes nothing else.
"""
import s3tests.functional as functional

_nuke_bucket = functional.nuke_bucket


def _abort_uploads(client, bucket):
    kwargs = {'Bucket': bucket}
    while True:
        listing = client.list_multipart_uploads(**kwargs)
        for upload in listing.get('Uploads', []):
            client.abort_multipart_upload(Bucket=bucket, Key=upload['Key'], UploadId=upload['UploadId'])
        if not listing.get('IsTruncated'):
            return
        kwargs['KeyMarker'] = listing.get('NextKeyMarker')
        kwargs['UploadIdMarker'] = listing.get('NextUploadIdMarker')


def _nuke_bucket_with_uploads(client, bucket):
    try:
        _abort_uploads(client, bucket)
    except Exception:  # the bucket may already be gone; the suite's cleanup reports what matters
        pass
    _nuke_bucket(client, bucket)


functional.nuke_bucket = _nuke_bucket_with_uploads
