fn main() {
    std::process::exit(meanscape::cli::main());
}
