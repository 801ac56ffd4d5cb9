//! The solver core every algorithm uses, and which imports no algorithm:
//! the problem and its caches, declared parameters, progress and
//! cancellation, seeding, the rows a solver reads, the fused power-mean
//! pass and its fast math, the stopping rules, the iteration engines
//! (power mean, Lloyd), and the run of parallel restarts.

pub mod algorithm;
mod assign;
pub mod block;
mod bounded;
pub mod cache;
pub mod caps;
pub mod csr;
pub mod extras;
mod f32_products;
pub mod fastmath;
pub mod fit;
pub mod init;
pub mod iterate;
pub mod lloyd;
pub mod matrix;
pub mod mix;
mod nearest;
pub mod params;
pub mod power_mean;
pub mod power_pass;
pub mod problem;
pub mod progress;
pub mod reduce;
pub mod row_dots;
pub mod rows;
pub mod sample;
pub mod simplex_qp;
pub mod space;
pub mod specs;
pub mod stopping;
pub mod weights;

pub use algorithm::{
    Algorithm, BATCH, BatchStart, Common, ModelKind, Request, Rng, RunConfig, Solver, Start,
    StartMemory, Weighs, check_config, check_memory, configure, in_batches, resolve_options,
    resolve_params, run,
};
pub use caps::{Caps, Family, PyClass, Scaling};
pub use extras::{Extras, Gap, KernelApprox, KernelInfo, KernelSet, MapInfo, Phases, Typicality};
pub use fit::{AssignRule, Fit, RunResult, TracePoint, cluster_sizes};
pub use init::Init;
pub use matrix::{Dtype, Matrix, Real};
pub use params::{ParamError, ParamSpec, Params};
pub use problem::{Features, Owner, Problem};
pub use progress::{Ctx, Event, Progress};
pub use space::{SpaceBlock, SpaceBlocks};
