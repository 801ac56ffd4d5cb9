use ndarray::Array2;
use std::time::Instant;
fn main() {
    let n = 70000;
    let p = 784;
    let k = 10;
    let x = Array2::from_shape_fn((n, p), |(i, j)| {
        (((i * 31 + j * 17) % 97) as f64 / 97.0).sin()
    });
    let c = Array2::from_shape_fn((k, p), |(i, j)| {
        (((i * 7 + j * 3) % 13) as f64 / 13.0).cos()
    });
    let xn = meanscape::linalg::row_sq_norms(x.view());
    let t = Instant::now();
    let mut s = 0.0;
    for _ in 0..5 {
        let d = meanscape::linalg::sq_dists(x.view(), &xn, c.view());
        s += d.sum();
    }
    println!("dist {:?}/iter sum {:.17e}", t.elapsed() / 5, s);
    let w = Array2::from_shape_fn((n, k), |(i, j)| ((i + j) % 5) as f64);
    let t = Instant::now();
    let mut s = 0.0;
    for _ in 0..5 {
        let d = meanscape::linalg::dot_tn(w.view(), x.view());
        s += d.sum();
    }
    println!("wtx {:?}/iter sum {:.17e}", t.elapsed() / 5, s);
}
