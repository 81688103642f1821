/**
 * Terraform's AWS provider against the S3 API, as production's docs configure it (a bucket, CORS and a lifecycle
 * configuration) plus an object and an object copy: `terraform apply`, then `terraform plan` shows no changes,
 * then `terraform destroy` leaves nothing. @aws-sdk/client-s3 checks what Stratus stored; the access log shows
 * no 5xx. Runs where the machine has `terraform` and the hashicorp/aws provider in a local plugin mirror
 * (`TF_PLUGIN_MIRROR`, else `/opt/tf-plugins`, `~/.terraform.d/plugins`, `/usr/share/terraform/plugins`):
 * nothing is downloaded, and the provider is told not to reach AWS (no credential, region, account or instance
 * metadata look-ups); otherwise the test is skipped with the reason printed. The S3 calls the provider makes are
 * also driven with the SDK in `test/s3/terraform-sequence.test.ts`, which always runs.
 *
 * Time (measured on the 2-core machine, quiet: 86 s): init 2 s, apply 64 s, plan 7 s, destroy 12 s. 55 s of the
 * apply is the provider's own wait for the lifecycle configuration to hold steady (it reads it back every 5 s
 * after 10 s, with any S3 server); the rest is mostly the provider starting and refreshing. The file waits far
 * more than it computes, so vitest.config.ts starts it first, beside the others.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetBucketCorsCommand, GetBucketLifecycleConfigurationCommand, GetObjectCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { cleanEnv, findTool } from '../helpers/s3-clients.js';
import { accessLines, captureLogger } from '../ops/capture-logger.js';

const AWS_PROVIDER = path.join('registry.terraform.io', 'hashicorp', 'aws');
const TERRAFORM = findTool('terraform');
/** A plugin mirror holding hashicorp/aws, and its version. */
const MIRROR = [process.env.TF_PLUGIN_MIRROR, '/opt/tf-plugins', path.join(os.homedir(), '.terraform.d', 'plugins'), '/usr/share/terraform/plugins']
  .filter((d): d is string => d !== undefined && d !== '')
  .map((dir) => ({ dir, versions: fs.existsSync(path.join(dir, AWS_PROVIDER)) ? fs.readdirSync(path.join(dir, AWS_PROVIDER)).filter((v) => /^\d+\.\d+\.\d+$/.test(v)) : [] }))
  .find((m) => m.versions.length > 0);
const skipReason = !TERRAFORM ? 'terraform is not installed (not on PATH)'
  : !MIRROR ? 'no local plugin mirror holds the hashicorp/aws provider (set TF_PLUGIN_MIRROR; nothing is downloaded)' : undefined;
if (skipReason) console.log(`terraform: skipped, ${skipReason}`);

const BUCKET = 'tf-bucket';
/** One terraform command: at most ten minutes (the lifecycle resource alone polls for a minute). */
const STEP_MS = 10 * 60_000;

const capture = captureLogger('info');
let server: TestServer;
let s3: S3Client;
let work: string;

/** The configuration: production's Terraform (AWS) example, an object with a key that needs encoding, and a copy of it. */
function mainTf(endpoint: string, version: string): string {
  return `
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "${version}" }
  }
}

provider "aws" {
  region     = "us-east-1"
  access_key = "${TEST_S3_ACCESS_KEY_ID}"
  secret_key = "${TEST_S3_SECRET}"

  skip_credentials_validation = true
  skip_region_validation      = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  s3_use_path_style           = true

  endpoints {
    s3 = "${endpoint}"
  }
}

resource "aws_s3_bucket" "default" {
  bucket        = "${BUCKET}"
  force_destroy = true
}

resource "aws_s3_bucket_cors_configuration" "default" {
  bucket = aws_s3_bucket.default.id

  cors_rule {
    allowed_methods = ["GET"]
    allowed_origins = ["*"]
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "default" {
  bucket = aws_s3_bucket.default.id

  rule {
    id     = "expire-bucket"
    status = "Enabled"
    expiration {
      days = 1
    }
  }

  rule {
    id     = "abort-multipart-upload"
    status = "Enabled"
    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }

  rule {
    id     = "logs-to-ia"
    status = "Enabled"
    filter {
      prefix = "logs/"
    }
    transition {
      days          = 30
      storage_class = "STANDARD_IA"
    }
  }
}

resource "aws_s3_object" "hello" {
  bucket       = aws_s3_bucket.default.id
  key          = "dir/hello world+1.txt"
  content      = "hello from terraform"
  content_type = "text/plain"
}

resource "aws_s3_object_copy" "copy" {
  bucket = aws_s3_bucket.default.id
  key    = "copy of hello.txt"
  source = "\${aws_s3_bucket.default.id}/\${aws_s3_object.hello.key}"
}
`;
}

/** Runs terraform in the working folder; its exit code and output (never throws on a non-zero exit). */
function terraform(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TERRAFORM!, args, {
      cwd: work,
      env: cleanEnv({
        HOME: work, TF_CLI_CONFIG_FILE: path.join(work, 'cli.tfrc'), TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1',
        TF_DATA_DIR: path.join(work, '.terraform'), AWS_EC2_METADATA_DISABLED: 'true', TF_LOG: '',
        // Go's garbage collector at 5 times the live heap instead of twice, for terraform and the provider it
        // starts (they inherit the environment): each provider start loads its whole schema (~550 MB), and
        // collecting on the way cost a fifth of its CPU time. Behaviour is the same; the suite's CPU is what
        // bounds its time. (GOGC=off cost more: the kernel's time zeroing the pages of a heap that only grows.)
        GOGC: '400',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

/** A terraform step that must exit with `expected`. */
async function step(args: string[], expected = 0): Promise<string> {
  const { code, output } = await terraform(args);
  if (code !== expected) throw new Error(`terraform ${args.join(' ')} exited ${code} (expected ${expected}):\n${output}`);
  return output;
}

describe.skipIf(skipReason !== undefined)('terraform with the AWS provider', () => {
  beforeAll(async () => {
    server = await startTestServer({ logger: capture.logger });
    s3 = testS3Client(server.running.s3Url!);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-terraform-'));
    fs.writeFileSync(path.join(work, 'cli.tfrc'), `disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = "${MIRROR!.dir}"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
`);
    fs.writeFileSync(path.join(work, 'main.tf'), mainTf(server.running.s3Url!, MIRROR!.versions.sort().at(-1)!));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('applies, plans no changes, and destroys a bucket with CORS, lifecycle rules, an object and its copy', async () => {
    await step(['init', '-input=false', '-no-color']);
    await step(['apply', '-auto-approve', '-input=false', '-no-color']);

    await s3.send(new HeadBucketCommand({ Bucket: BUCKET }));
    expect((await s3.send(new GetBucketCorsCommand({ Bucket: BUCKET }))).CORSRules).toEqual([{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAgeSeconds: 0 }]);
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: BUCKET }))).Rules!.map((r) => r.ID)).toEqual(['expire-bucket', 'abort-multipart-upload', 'logs-to-ia']);
    const copy = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'copy of hello.txt' }));
    expect(await copy.Body!.transformToString()).toBe('hello from terraform');
    expect(copy.ContentType).toBe('text/plain');

    // -detailed-exitcode: 0 means no changes (2 would be a diff).
    const plan = await step(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    expect(plan).toContain('No changes.');

    await step(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: BUCKET })))).toMatchObject({ status: 404 });

    const lines = accessLines(capture.lines(), 's3');
    expect(lines.filter((l) => Number(l.status) >= 500 && l.status !== 501)).toEqual([]);
    expect(lines.filter((l) => l.route === 'unparsed')).toEqual([]);
  }, 4 * STEP_MS);
});
