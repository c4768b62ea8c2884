package mpi

import (
	"os"
	"strconv"
)

// launchedSize is the number of ranks an MPI launcher says the job has (0
// when it says nothing).
func launchedSize() int {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// Launched reports whether this process was started by an MPI launcher
// (mpirun or mpiexec of OpenMPI or MPICH, or SLURM's srun with PMI/PMIx).
func Launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}
