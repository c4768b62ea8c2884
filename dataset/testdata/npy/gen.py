# Writes the .npy/.npz fixtures of npy_test.go with NumPy (run here with
# /usr/bin/python3 gen.py; committed output made with NumPy 1.24.2).
# X[i, j] = 10 i + j + 0.5 for a 5×3 matrix; y = [0, 1, 0, 1, 1].
import numpy as np
import numpy.lib.format as fmt

X = np.array([[10 * i + j for j in range(3)] for i in range(5)], dtype=np.float64) + 0.5
y = np.array([0, 1, 0, 1, 1], dtype=np.int64)

np.save("X.npy", X)                                  # v1.0 <f8 C order: memory-mapped
np.save("y.npy", y)                                  # <i8
np.save("f4_X.npy", X.astype("<f4"))
np.save("f4_y.npy", y.astype(bool))                  # |b1
np.save("fortran_X.npy", np.asfortranarray(X))
np.save("fortran_y.npy", y.astype("<i4"))
with open("v2_X.npy", "wb") as f:
    fmt.write_array(f, X, version=(2, 0))
np.save("v2_y.npy", y.astype("|i1"))
with open("v3_X.npy", "wb") as f:
    fmt.write_array(f, np.asfortranarray(X.astype("<f4")), version=(3, 0))
np.save("v3_y.npy", y.astype("|u1"))
np.save("be_X.npy", X.astype(">f8"))
np.save("be_y.npy", (2 * y - 1).astype(">i4"))        # labels -1, +1
np.save("int_X.npy", X.astype("<i8"))                # truncated: 10 i + j
np.save("int_y.npy", y.astype("<f8"))
np.savez("data.npz", X=X, y=y)
np.savez_compressed("compressed.npz", X=X, labels=y)
np.savez("positional.npz", X, y)
