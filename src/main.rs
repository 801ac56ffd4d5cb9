fn main() {
    #[cfg(feature = "tui")]
    let ui: meanscape::cli::Ui = meanscape::tui::from_args;
    #[cfg(not(feature = "tui"))]
    let ui: meanscape::cli::Ui = meanscape::cli::no_ui;
    std::process::exit(meanscape::cli::main(ui));
}
