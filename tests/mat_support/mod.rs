//! MATLAB v5 files written by the tests themselves: the kernel stacks
//! (`KH`, n×n×v) and labels (`Y`) the multiple-kernel datasets ship as.

#![allow(dead_code)]

use ndarray::Array2;
use std::path::Path;

pub fn el(ty: u32, data: &[u8]) -> Vec<u8> {
    let mut v = ty.to_le_bytes().to_vec();
    v.extend_from_slice(&(data.len() as u32).to_le_bytes());
    v.extend_from_slice(data);
    while !v.len().is_multiple_of(8) {
        v.push(0);
    }
    v
}

/// A double variable of MATLAB v5, uncompressed; `values` column-major.
pub fn mat_var(name: &str, dims: &[i32], values: &[f64]) -> Vec<u8> {
    let mut body = el(6, &[6, 0, 0, 0, 0, 0, 0, 0]);
    let d: Vec<u8> = dims.iter().flat_map(|d| d.to_le_bytes()).collect();
    body.extend(el(5, &d));
    body.extend(el(1, name.as_bytes()));
    let data: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    body.extend(el(9, &data));
    let mut m = 14u32.to_le_bytes().to_vec();
    m.extend_from_slice(&(body.len() as u32).to_le_bytes());
    m.extend(body);
    m
}

pub fn mat_header() -> Vec<u8> {
    let mut h = format!("{:<116}", "MATLAB 5.0 MAT-file, meanscape test").into_bytes();
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&0x0100u16.to_le_bytes());
    h.extend_from_slice(b"IM");
    h
}

/// `KH` (n×n×v) and `Y` (n×1) as the multiple-kernel datasets ship them.
pub fn write_mat(path: &Path, kh: &[Array2<f64>], y: Option<&[f64]>) {
    let (n, m) = kh[0].dim();
    let mut values = Vec::new();
    for k in kh {
        for j in 0..m {
            for i in 0..n {
                values.push(k[[i, j]]);
            }
        }
    }
    let mut b = mat_header();
    b.extend(mat_var(
        "KH",
        &[n as i32, m as i32, kh.len() as i32],
        &values,
    ));
    if let Some(y) = y {
        b.extend(mat_var("Y", &[y.len() as i32, 1], y));
    }
    std::fs::write(path, b).unwrap();
}
