fn main() {
    #[cfg(feature = "tui")]
    let ui: meanscape::cli::Ui = meanscape::tui::start;
    #[cfg(not(feature = "tui"))]
    let ui: meanscape::cli::Ui = meanscape::cli::no_ui;
    std::process::exit(meanscape::cli::main(ui));
}
