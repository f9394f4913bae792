"""The matmul dealer as a Python multilang bolt: multiplies each pair of n x n
matrices from MatrixReader ([id, n, a, b, expected], row-major lists) and emits
[id, n, sum of the product, expected] for MatrixPrinter to check.

Backend, by conf "matmul.multilang.backend" (auto | cupy | numpy | python):
auto takes CuPy when it imports and sees a CUDA device, else NumPy, else
pure Python. Which one ran, and why the others did not, is logged once at
start and counted per product in the task's metrics
(multilang.backend.cupy / .numpy / .python), so a CPU run never passes for a
GPU run.
"""
import sys

import hstorm_multilang as ml


def choose_backend(wanted):
    """Returns (name, module, why)."""
    notes = []
    if wanted in ('auto', 'cupy'):
        try:
            import cupy
            devices = cupy.cuda.runtime.getDeviceCount()
            if devices > 0:
                props = cupy.cuda.runtime.getDeviceProperties(0)
                name = props['name'].decode() if isinstance(props['name'], bytes) else str(props['name'])
                return 'cupy', cupy, 'CuPy %s on CUDA device 0 (%s) of %d' % (cupy.__version__, name, devices)
            notes.append('CuPy sees no CUDA device')
        except Exception as e:  # ImportError, or CUDARuntimeError without a driver
            notes.append('no GPU backend: CuPy unavailable (%s: %s)' % (e.__class__.__name__, str(e).splitlines()[0] if str(e) else ''))
        if wanted == 'cupy':
            raise RuntimeError('matmul.multilang.backend=cupy, but ' + '; '.join(notes))
    if wanted in ('auto', 'numpy'):
        try:
            import numpy
            return 'numpy', numpy, 'NumPy %s on the CPU; %s' % (numpy.__version__, '; '.join(notes) or 'chosen by config')
        except ImportError as e:
            notes.append('NumPy unavailable (%s)' % e)
            if wanted == 'numpy':
                raise RuntimeError('matmul.multilang.backend=numpy, but ' + '; '.join(notes))
    return 'python', None, 'pure Python on the CPU; %s' % ('; '.join(notes) or 'chosen by config')


def product_sum_python(a, b, n):
    """Sum of the entries of A.B, multiplying in full (i-k-j loops)."""
    total = 0.0
    for i in range(n):
        row = [0.0] * n
        base = i * n
        for k in range(n):
            aik = a[base + k]
            if aik:
                off = k * n
                row = [r + aik * x for r, x in zip(row, b[off:off + n])]
        total += sum(row)
    return total


class MatmulBolt(ml.Bolt):
    def initialize(self, conf, context):
        self.backend, self.xp, why = choose_backend(conf.get('matmul.multilang.backend') or 'auto')
        self.np = None
        if self.backend == 'cupy':
            import numpy
            self.np = numpy
        line = 'matmul multilang dealer (task %s): backend %s: %s' % (context.get('taskid'), self.backend, why)
        ml.log(line)
        sys.stderr.write(line + '\n')
        sys.stderr.flush()

    def process(self, tup):
        mid, n, a, b, expected = tup['tuple']
        if self.backend == 'python':
            s = product_sum_python(a, b, n)
        elif self.backend == 'numpy':
            np = self.xp
            c = np.asarray(a, dtype=np.float32).reshape(n, n) @ np.asarray(b, dtype=np.float32).reshape(n, n)
            s = float(c.sum(dtype=np.float64))
        else:
            cp, np = self.xp, self.np
            c = cp.asarray(np.asarray(a, dtype=np.float32).reshape(n, n)) @ cp.asarray(np.asarray(b, dtype=np.float32).reshape(n, n))
            s = float(c.sum(dtype=cp.float64))  # float() waits for the kernel
        ml.metric('multilang.backend.' + self.backend)
        return [mid, n, s, expected]


if __name__ == '__main__':
    MatmulBolt().run()
