//! MATLAB v5 .mat (STUB — being written).
use super::{Dataset, LoadOptions};
use crate::error::Result;
pub fn read(_path: &std::path::Path, _opts: &LoadOptions) -> Result<Dataset> {
    todo!()
}
