"""scikit-learn's own estimator checks, run on every estimator with its
defaults. All apply and pass; scikit-learn itself skips the array-API check
unless SCIPY_ARRAY_API is set (it reports that as a skip, with its reason)."""

import warnings

from sklearn.utils.estimator_checks import parametrize_with_checks

import meanscape

ESTIMATORS = [meanscape.KMeans()] + [getattr(meanscape, name)() for name in meanscape._estimators.__all__]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", meanscape.MeanscapeWarning)
        check(estimator)
