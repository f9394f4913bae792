/**
 * MatrixDealer (the paper's Fig. 9 bolt): multiplies each pair with the
 * GpuBolt matmul kernel (gpu-multiply-bolt.ts). One class for both sides:
 * declared with `.gpu()` its executors go to GPU workers and run the kernel
 * on a GPU backend; declared without it, or placed on a CPU worker because no
 * GPU slot is free, the same kernel runs on a CPU backend (webasm). The
 * backend that ran is in the `gpu` metrics and the run summary.
 *
 * Config: matmul.dim (the kernel is built for one size), and the GpuBolt keys
 * topology.gpu.batch.size / .batch.max.wait.ms / .launches.in.flight.
 */
import { GpuMultiplyBolt } from './gpu-multiply-bolt.js';

export class MatrixDealer extends GpuMultiplyBolt {}
