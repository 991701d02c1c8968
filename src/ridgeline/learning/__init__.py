"""The learned model's side of the data flow: the estimator and its shipped file format, the
feature columns it reads (analysed launch, GPU catalog, counted), the counted table it is
fitted with, and the confidence of the class it gives. Predictors use it; it knows no
predictor."""
